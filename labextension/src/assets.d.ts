/** The URL of an asset/resource module (webpack.config.js). */
declare module 'pdfjs-dist/build/pdf.worker.min.js' {
  const url: string;
  export default url;
}
