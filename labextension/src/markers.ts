import { MarkdownCell } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

import { IFinding } from './api';
import { cellIndex } from './cells';

/** The class a cell with an error / a warning carries after a check (DESIGN §2a: errors first). */
export const MARKER_CLASSES = {
  error: 'mechnb-finding-error',
  warning: 'mechnb-finding-warning'
} as const;

const TITLE_ATTR = 'data-mechnb-findings';

/**
 * Mark the cells of `panel` that have findings: the worse severity's class (a coloured bar at the
 * cell's left edge, base.css) and the messages as hover text. The marks of an earlier check are
 * removed first; info findings mark nothing.
 */
export function markCells(panel: NotebookPanel, findings: IFinding[]): void {
  const notebook = panel.content;
  const byCell = new Map<number, { error: boolean; lines: string[] }>();
  for (const finding of findings) {
    if (finding.severity === 'info') {
      continue;
    }
    let index = cellIndex(notebook, finding.cell_id);
    if (index < 0 && finding.cell !== null) {
      index = finding.cell;
    }
    if (index < 0 || index >= notebook.widgets.length) {
      continue;
    }
    const entry = byCell.get(index) ?? { error: false, lines: [] };
    entry.error = entry.error || finding.severity === 'error';
    entry.lines.push(`${finding.code} ${finding.severity}: ${finding.message}`);
    byCell.set(index, entry);
  }
  notebook.widgets.forEach((cell, index) => {
    cell.removeClass(MARKER_CLASSES.error);
    cell.removeClass(MARKER_CLASSES.warning);
    if (cell.node.hasAttribute(TITLE_ATTR)) {
      cell.node.removeAttribute(TITLE_ATTR);
      cell.node.removeAttribute('title');
    }
    const entry = byCell.get(index);
    if (entry) {
      cell.addClass(entry.error ? MARKER_CLASSES.error : MARKER_CLASSES.warning);
      cell.node.setAttribute(TITLE_ATTR, '');
      cell.node.title = entry.lines.join('\n');
    }
  });
}

/** After a finding selected its cell: the cursor at its line and column, in edit mode. */
export function placeCursor(
  panel: NotebookPanel,
  finding: Pick<IFinding, 'line'> & { column?: number | null }
): void {
  const notebook = panel.content;
  const cell = notebook.activeCell;
  if (!cell || finding.line === null) {
    return;
  }
  if (cell instanceof MarkdownCell && cell.rendered) {
    cell.rendered = false;
  }
  notebook.mode = 'edit';
  const editor = cell.editor;
  if (!editor) {
    return;
  }
  const line = Math.min(Math.max(finding.line - 1, 0), editor.lineCount - 1);
  editor.setCursorPosition({ line, column: Math.max((finding.column ?? 1) - 1, 0) });
  editor.focus();
}
