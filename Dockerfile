# Assay as one container: the compiled executable on a slim Debian base, data in /data. See docs/deploy.md.
# Build: docker build -t assay .    Run: docker run -p 8080:8080 -v assay-data:/data assay
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && mkdir -p /out/data

# The final stage has no RUN step: nothing executes at build time, so what ships is exactly these files.
FROM debian:bookworm-slim
COPY --from=build /src/dist/assay /usr/local/bin/assay
# /data belongs to the unprivileged user the server runs as (a named volume takes this ownership on first use).
COPY --from=build --chown=10001:10001 /out/data /data
USER 10001:10001
ENV ASSAY_HOST=0.0.0.0 ASSAY_PORT=8080 ASSAY_DATA_DIR=/data
EXPOSE 8080
VOLUME /data
HEALTHCHECK --interval=30s --timeout=3s CMD ["/usr/local/bin/assay", "health"]
ENTRYPOINT ["/usr/local/bin/assay"]
CMD ["serve"]
