/**
 * Live cell numbers in `%mech check` output: the kernel numbers cells as the saved file has
 * them, and cells inserted or moved since the last save shift them (DESIGN §2a: a cell number
 * is its 1-based position as the user sees it). Each number comes in a
 * `span.mechnb-cell-number` with the cell's id; here it is rewritten to that cell's position in
 * the open notebook, whenever such output appears and whenever cells are added, removed or moved.
 */
import { NotebookPanel } from '@jupyterlab/notebook';

import { cellIndex } from './cells';

const NUMBER = 'span.mechnb-cell-number[data-mechnb-cell-id]';

/** Rewrite every cell number under `root` to the live position of the cell it names. */
export function renumber(panel: NotebookPanel, root: ParentNode = panel.content.node): void {
  for (const span of Array.from(root.querySelectorAll<HTMLElement>(NUMBER))) {
    const index = cellIndex(panel.content, span.dataset.mechnbCellId ?? null);
    const text = index < 0 ? span.dataset.mechnbSaved ?? span.textContent : `cell ${index + 1}`;
    span.dataset.mechnbSaved ??= span.textContent ?? '';
    if (index < 0) {
      span.title = 'this cell is no longer in the notebook';
    }
    if (text !== null && span.textContent !== text) {
      span.textContent = text;
    }
  }
}

/** Keep the cell numbers of `panel`'s check output live. */
export function keepCellNumbersLive(panel: NotebookPanel): void {
  let queued = false;
  const later = (): void => {
    if (!queued) {
      queued = true;
      requestAnimationFrame(() => {
        queued = false;
        if (!panel.isDisposed) {
          renumber(panel);
        }
      });
    }
  };
  const observer = new MutationObserver(records => {
    if (records.some(r => Array.from(r.addedNodes).some(
      n => n instanceof Element && (n.matches(NUMBER) || n.querySelector(NUMBER) !== null)))) {
      later();
    }
  });
  observer.observe(panel.content.node, { childList: true, subtree: true });
  const follow = (): void => {
    panel.content.model?.cells.changed.connect(later);
  };
  panel.content.modelChanged.connect(follow);
  follow();
  panel.disposed.connect(() => observer.disconnect());
}
