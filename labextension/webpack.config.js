// pdf.js's worker is shipped as a file of the extension (not bundled): the preview starts it as
// a Web Worker from its URL, so PDFs are parsed off the page's main thread.
module.exports = {
  module: {
    rules: [
      {
        test: /pdf\.worker\.min\.js$/,
        type: 'asset/resource',
        generator: { filename: 'pdf.worker.[contenthash].js' }
      }
    ]
  }
};
