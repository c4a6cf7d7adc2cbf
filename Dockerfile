# Assay as one container: the compiled executable on a slim Debian base, data in /data.
# Build: docker build -t assay .    Run: docker run -p 8080:8080 -v assay-data:/data assay
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

FROM debian:bookworm-slim
RUN useradd --system --home /data assay && mkdir -p /data && chown assay /data
COPY --from=build /src/dist/assay /usr/local/bin/assay
USER assay
ENV ASSAY_HOST=0.0.0.0 ASSAY_PORT=8080 ASSAY_DATA_DIR=/data
EXPOSE 8080
VOLUME /data
HEALTHCHECK --interval=30s --timeout=3s CMD ["/usr/local/bin/assay", "health"]
ENTRYPOINT ["/usr/local/bin/assay"]
CMD ["serve"]
