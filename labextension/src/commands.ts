/**
 * Every command id of the extension, in one place.
 */
export namespace CommandIDs {
  /** Open the phrase panel (the server's phrase search: no kernel needed). */
  export const openPhrases = 'mechnb:open-phrases';
  /** Set the role (and label) of the selected cells: metadata.mechnb + the mech:<role> tag. */
  export const setRole = 'mechnb:set-role';
  /** Edit role, label, title, caption, validates and kind of the active cell in one dialog. */
  export const cellProperties = 'mechnb:cell-properties';
  /** Remove the role and label of the selected cells. */
  export const clearRole = 'mechnb:clear-role';
  /** Run the closing-loop checks on the saved notebook and list the findings. */
  export const checkArgument = 'mechnb:check-argument';
  /** Export the notebook to LaTeX (and PDF when TeX is present) next to it. */
  export const exportPaper = 'mechnb:export-paper';
  /** Build the arXiv tarball (.tex + .bbl + figures), checked with pdfLaTeX, next to it. */
  export const exportArxiv = 'mechnb:export-arxiv';
  /** Build the Overleaf project zip (sources + .bib + latexmkrc), checked with latexmk. */
  export const exportOverleaf = 'mechnb:export-overleaf';
  /** Show the moves of the active abstract cell in the right side bar. */
  export const showMoves = 'mechnb:show-moves';
  /** Create a paper notebook from a paper type's scaffold (type, language, title). */
  export const newPaper = 'mechnb:new-paper';
  /** Edit the paper's title, authors, bibliography, language, venue style and engine. */
  export const paperSettings = 'mechnb:paper-settings';
  /** Open the PDF preview of the notebook beside it (rebuilt on save; SyncTeX both ways). */
  export const preview = 'mechnb:preview';
  /** Scroll the preview to the active cell's place in the PDF. */
  export const showInPdf = 'mechnb:show-in-pdf';
  /** The argument map of the notebook in its own zoomable panel. */
  export const argumentMap = 'mechnb:argument-map';
  /** The paper's outline (sections and labelled statements) in the left side bar. */
  export const outline = 'mechnb:outline';
}

/** The comm target shared with mechnb/_bridge.py. */
export const COMM_TARGET = 'mechnb';

/** Message protocol version shared with mechnb/_bridge.py (PROTOCOL). */
export const PROTOCOL = 1;

/** The tag prefix that mirrors a cell role (DESIGN.md §2). */
export const TAG_PREFIX = 'mech:';
