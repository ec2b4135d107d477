import { Cell, ICellModel } from '@jupyterlab/cells';
import { NotebookPanel } from '@jupyterlab/notebook';

import { cellRole } from './cells';

const BADGE_CLASS = 'jp-mechnb-badge';
const HAS_ROLE_CLASS = 'jp-mechnb-hasRole';

/** Show, update or remove the role badge of one cell widget. */
export function updateBadge(cell: Cell): void {
  const info = cellRole(cell.model);
  let badge = cell.node.querySelector(`:scope > .${BADGE_CLASS}`) as HTMLElement | null;
  if (!info) {
    badge?.remove();
    cell.removeClass(HAS_ROLE_CLASS);
    delete cell.node.dataset.mechnbRole;
    return;
  }
  if (!badge) {
    badge = document.createElement('div');
    badge.className = BADGE_CLASS;
    cell.node.appendChild(badge);
  }
  const text = info.label ? `${info.role} · ${info.label}` : info.role;
  if (badge.textContent !== text) {
    badge.textContent = text;
  }
  badge.title = `mechnb role: ${info.role}${info.label ? ` (label ${info.label})` : ''}`;
  badge.dataset.role = info.role;
  cell.addClass(HAS_ROLE_CLASS);
  cell.node.dataset.mechnbRole = info.role;
}

/**
 * Keep role badges on every cell of `panel`: refreshed when cells are added or moved and when a
 * cell's metadata changes (by the set-role command, the metadata editor or a collaborator).
 */
export function trackBadges(panel: NotebookPanel): void {
  const watched = new WeakSet<ICellModel>();
  let scheduled = false;

  const refreshAll = () => {
    scheduled = false;
    const notebook = panel.content;
    for (const cell of notebook.widgets) {
      if (!watched.has(cell.model)) {
        watched.add(cell.model);
        cell.model.metadataChanged.connect(() => {
          const widget = notebook.widgets.find(w => w.model === cell.model);
          if (widget) {
            updateBadge(widget);
          }
        });
      }
      updateBadge(cell);
    }
  };
  const schedule = () => {
    if (!scheduled) {
      scheduled = true;
      // after the notebook widget has created the cell widgets for the change
      void Promise.resolve().then(refreshAll);
    }
  };

  const connectModel = () => {
    const model = panel.content.model;
    if (model) {
      model.cells.changed.connect(schedule);
      schedule();
    }
  };
  panel.content.modelChanged.connect(connectModel);
  void panel.context.ready.then(schedule);
  connectModel();
}
