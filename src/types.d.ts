// Module declarations for files the bundler embeds: migrations as text, the offline docs UI's assets and PDFium's .wasm as files (a path).
declare module "*.sql" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const text: string;
  export default text;
}
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const text: string;
  export default text;
}
declare module "@embedpdf/pdfium/pdfium.wasm" {
  const path: string;
  export default path;
}
