import { PathExt } from '@jupyterlab/coreutils';
import { IEditorExtensionRegistry } from '@jupyterlab/codemirror';
import { ICompletionProviderManager } from '@jupyterlab/completer';
import {
  ILabShell,
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import {
  Dialog,
  ICommandPalette,
  InputDialog,
  Notification,
  showDialog,
  ToolbarButton
} from '@jupyterlab/apputils';
import { IDocumentManager } from '@jupyterlab/docmanager';
import { IMainMenu } from '@jupyterlab/mainmenu';
import { INotebookTracker, NotebookActions, NotebookPanel } from '@jupyterlab/notebook';
import { Widget } from '@lumino/widgets';

import {
  IExportRequest,
  IExportResult,
  IFinding,
  IRoleInfo,
  requestAPI
} from './api';
import { connectBridge } from './bridge';
import { trackBadges } from './badges';
import {
  adoptShownCells,
  cellRole,
  insertCells,
  insertText,
  selectCell,
  writeRole
} from './cells';
import { CommandIDs } from './commands';
import { markCells, placeCursor } from './markers';
import { fixCollaborativeSaves, saveOnce } from './save';
import { MovesPanel } from './moves';
import {
  ReferenceCompletionProvider,
  autoOpenCompletion,
  registerSpellcheck
} from './writing';
import { PhrasesPanel } from './phrases';
import { editCellProperties } from './properties';
import { mathjaxPlugin } from './mathjax';
import { treePlugin } from './tree';
import { OutlinePanel } from './outline';
import { keepCellNumbersLive } from './livecells';
import { paperPlugin } from './paper';
import { ArgumentMapPanel } from './argmap';
import { IPreviewResult, ISource, placeOf, PreviewPanel } from './preview';
import {
  PREVIEW_FACTORY,
  PreviewFactory,
  PreviewMessage,
  previewChannel,
  tell
} from './previewtab';
import { FindingsPanel, WidgetHost } from './sidebar';

/** The role a typed or picked entry names: the item itself ("theorem — …"), a role name, or
 * the one role that starts with what was typed. */
export function roleOf(value: string, names: string[]): string | null {
  const typed = value.split(' — ')[0].trim().toLowerCase();
  if (names.includes(typed)) {
    return typed;
  }
  const starting = names.filter(n => n.startsWith(typed));
  return typed && starting.length === 1 ? starting[0] : null;
}

declare function require(path: string): any;
const VERSION: string = require('../package.json').version;

const CATEGORY = 'mechnb';

/** Undefined references and citations (MECH811, MECH812): named in the export's toast. */
const UNRESOLVED = ['MECH811', 'MECH812'];

/** What File › Save and Export Notebook As calls mechnb's nbconvert exporter. */
export const EXPORTER_LABEL = 'Mechanism paper (LaTeX)';

/**
 * JupyterLab labels each nbconvert exporter of File › Save and Export Notebook As by its name
 * ("Mechnb"); give mechnb's item its own label. The formats arrive from the server after
 * start-up, so look a few times.
 */
function relabelExportItem(mainMenu: IMainMenu): void {
  let tries = 0;
  const attempt = (): void => {
    const holder = mainMenu.fileMenu.items.find(
      item => item.type === 'submenu' && item.submenu?.id === 'jp-mainmenu-file-notebookexport'
    );
    const menu = holder?.submenu;
    const item = menu?.items.find(
      i => i.command === 'notebook:export-to-format' && (i.args as any)?.format === 'mechnb'
    );
    if (menu && item) {
      if ((item.args as any).label !== EXPORTER_LABEL) {
        const at = menu.items.indexOf(item);
        menu.removeItem(item);
        menu.insertItem(at, {
          command: item.command,
          args: { ...(item.args as any), label: EXPORTER_LABEL }
        });
      }
      return;
    }
    if (++tries < 40) {
      window.setTimeout(attempt, 500);
    }
  };
  attempt();
}

/** " (2 errors, 1 undefined reference)" for a failed export's notification; "" if none. */
function counted(errors: number, unresolved: number): string {
  const parts = errors ? [`${errors} error${errors === 1 ? '' : 's'}`] : [];
  if (unresolved) {
    parts.push(`${unresolved} undefined reference${unresolved === 1 ? '' : 's'}`);
  }
  return parts.length ? ` (${parts.join(', ')})` : '';
}

/** Add `widget` to the right side bar (JupyterLab and Notebook 7) and show it. */
function showRight(app: JupyterFrontEnd, widget: Widget, rank: number): void {
  if (!widget.isAttached) {
    app.shell.add(widget, 'right', { rank });
  }
  app.shell.activateById(widget.id);
  // Notebook 7 keeps its right panel collapsed until asked
  const shell = app.shell as any;
  if (typeof shell.expandRight === 'function') {
    shell.expandRight();
  }
}

let rolesCache: Promise<IRoleInfo[]> | null = null;
function roles(): Promise<IRoleInfo[]> {
  if (!rolesCache) {
    rolesCache = requestAPI<IRoleInfo[]>('roles').catch(error => {
      rolesCache = null;
      throw error;
    });
  }
  return rolesCache;
}

/** The CLI's own verdict (its last ``mechnb export: …`` line), else the log's last line. */
function summary(log: string): string {
  const lines = log.trim().split('\n').filter(line => line.trim());
  const verdict = [...lines].reverse().find(line => line.startsWith('mechnb export'));
  return (verdict ?? lines[lines.length - 1] ?? 'export failed').replace(/^mechnb export: (error: )?/, '');
}

/** The full log of a failed export in a dialog (findings name their cells). */
function showLog(title: string, log: string): void {
  const body = new Widget({ node: document.createElement('pre') });
  body.addClass('jp-mechnb-export-log');
  body.node.textContent = log;
  void showDialog({ title, body, buttons: [Dialog.okButton()] });
}

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'mechnb:plugin',
  description:
    'mechnb: inserts role-tagged template cells for %mech, role badges, the phrase side bar, check and export.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICommandPalette, ILabShell, IDocumentManager, IMainMenu],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    palette: ICommandPalette | null,
    labShell: ILabShell | null,
    docManager: IDocumentManager | null,
    mainMenu: IMainMenu | null
  ) => {
    const hosts = new Map<string, WidgetHost>();
    let findings: FindingsPanel | null = null;
    const findingsPanel = (): FindingsPanel => {
      if (!findings || findings.isDisposed) {
        findings = new FindingsPanel((panel, finding) => {
          if (selectCell(panel, finding.cell_id, finding.cell)) {
            app.shell.activateById(panel.id);
            placeCursor(panel, finding);
          }
        });
      }
      return findings;
    };

    // The last check's and the last build's findings of each notebook: the Findings panel and
    // the cell markers show both (TeX errors are findings like the others).
    const checkFound = new WeakMap<NotebookPanel, IFinding[]>();
    const buildFound = new WeakMap<NotebookPanel, IFinding[]>();
    const showAll = (panel: NotebookPanel): void => {
      const all = [...(buildFound.get(panel) ?? []), ...(checkFound.get(panel) ?? [])];
      if (checked === panel && findings?.isAttached) {
        findingsPanel().showFindings(panel, all);
      }
      markCells(panel, all);
    };

    // The notebook whose findings are listed; its saves re-run the check (checks are cheap).
    let checked: NotebookPanel | null = null;
    let inFlight = false;
    let again = false;
    const runCheck = async (panel: NotebookPanel, save: boolean): Promise<void> => {
      checked = panel;
      if (inFlight) {
        again = true;
        return;
      }
      inFlight = true;
      try {
        do {
          again = false;
          const target = checked as NotebookPanel | null;
          if (!target || target.isDisposed) {
            break;
          }
          const path = target.context.path;
          try {
            if (save && target.context.model.dirty) {
              await saveOnce(target.context);
            }
            const result = await requestAPI<IFinding[]>(
              `check?path=${encodeURIComponent(path)}`
            );
            checkFound.set(target, result);
            showAll(target);
          } catch (error) {
            findingsPanel().failed(path, (error as Error).message);
          }
        } while (again);
      } finally {
        inFlight = false;
      }
    };

    const handlers = {
      insertCells,
      insertText,
      selectCell: (panel: NotebookPanel, cellId: string) => selectCell(panel, cellId),
      openSidebar: (panel: NotebookPanel, modelId: string, title: string) => {
        let host = hosts.get(title);
        if (!host || host.isDisposed) {
          host = new WidgetHost(title);
          hosts.set(title, host);
        }
        host.showWidget(panel, modelId);
        showRight(app, host, 600);
      }
    };

    /** A toolbar button that runs `command`, placed after the item `after` (else at the end;
     * JupyterLab's ReactiveToolbar folds items into its overflow menu from the end). */
    const addButton = (
      panel: NotebookPanel,
      name: string,
      after: string,
      className: string,
      label: string,
      tooltip: string,
      command: string
    ): void => {
      const button = new ToolbarButton({
        className,
        label,
        tooltip,
        onClick: () => void app.commands.execute(command)
      });
      panel.toolbar.insertAfter(after, name, button) || panel.toolbar.addItem(name, button);
    };

    // The one-cell Quickstart: cells shown while the bridge was not up become real cells.
    NotebookActions.executed.connect((_, { notebook, cell }) => {
      const panel = tracker.find(p => p.content === notebook);
      if (panel) {
        adoptShownCells(panel, cell.model);
      }
    });

    tracker.widgetAdded.connect((_, panel) => {
      fixCollaborativeSaves(panel.context);
      connectBridge(panel, handlers, VERSION);
      trackBadges(panel);
      keepCellNumbersLive(panel); // `%mech check` rows number cells as the notebook shows them
      // `%mech check` output rows carry data-mechnb-cell-id: a click selects that cell
      panel.content.node.addEventListener('click', event => {
        const target = (event.target as HTMLElement | null)?.closest?.(
          '[data-mechnb-cell-id], [data-mechnb-cell-index]'
        ) as HTMLElement | null;
        if (target) {
          const index = Number(target.dataset.mechnbCellIndex ?? NaN);
          selectCell(
            panel,
            target.dataset.mechnbCellId ?? null,
            Number.isNaN(index) ? null : index
          );
        }
      });
      panel.context.saveState.connect((_, state) => {
        if (state === 'completed' && checked === panel && findings?.isAttached) {
          void runCheck(panel, false);
        }
        if (state === 'completed' && !labShell) {
          tell({ type: 'saved', path: panel.context.path }); // Notebook 7's preview tab
        }
      });
      panel.disposed.connect(() => {
        if (checked === panel) {
          checked = null;
        }
      });
      // before the cell-type menu and the kernel items: a narrow toolbar (the notebook beside its
      // preview) folds those into its "⋯" first, and keeps Check, Export and Preview in view
      addButton(panel, 'mechnbCheck', 'restart-and-run', 'jp-mechnb-check-button', 'Check argument',
        'mechnb: run the closing-loop checks on this notebook', CommandIDs.checkArgument);
      addButton(panel, 'mechnbExport', 'mechnbCheck', 'jp-mechnb-export-button', 'Export paper',
        'mechnb: write the LaTeX paper (and its PDF when TeX is installed)',
        CommandIDs.exportPaper);
      addButton(panel, 'mechnbPreview', 'mechnbExport', 'jp-mechnb-preview-button', 'Preview',
        'mechnb: the PDF beside the notebook, rebuilt on save; double-click in it to jump to the cell',
        CommandIDs.preview);
    });

    const current = (): NotebookPanel | null => {
      const panel = tracker.currentWidget;
      return panel && !panel.isDisposed ? panel : null;
    };
    const hasNotebook = () => current() !== null;

    app.commands.addCommand(CommandIDs.setRole, {
      label: 'Set mechnb Role…',
      caption: 'Set the role (and LaTeX label) of the selected cells',
      isEnabled: hasNotebook,
      execute: async args => {
        const panel = current();
        const active = panel?.content.activeCell;
        if (!panel || !active) {
          return;
        }
        const existing = cellRole(active.model);
        let role = typeof args.role === 'string' ? args.role : null;
        let label = typeof args.label === 'string' ? args.label : undefined;
        if (role === null) {
          const all = await roles();
          // "theorem — The main result…": the registry's purpose helps to pick among 30 roles
          const items = all.map(r => `${r.name} — ${r.purpose.en}`);
          const current = existing ? all.findIndex(r => r.name === existing.role) : -1;
          // editable: type to filter the list (a datalist), the current role preselected
          const choice = await InputDialog.getItem({
            title: 'Cell role',
            items,
            current: Math.max(current, 0),
            editable: true,
            placeholder: 'type to filter: theorem, gap, lens…'
          });
          if (!choice.button.accept || !choice.value) {
            return;
          }
          role = roleOf(choice.value, all.map(r => r.name));
          if (role === null) {
            Notification.error(`mechnb: no role matches "${choice.value}"`);
            return;
          }
          const info = (await roles()).find(r => r.name === role);
          const answer = await InputDialog.getText({
            title: `Label for this ${role} (optional)`,
            placeholder: info?.label_prefix ? `${info.label_prefix}:name` : '',
            text: existing?.label ?? ''
          });
          if (!answer.button.accept) {
            return;
          }
          label = (answer.value ?? '').trim();
        } else if (!(await roles()).some(r => r.name === role)) {
          Notification.error(`mechnb: unknown role "${role}"`);
          return;
        }
        for (const cell of panel.content.widgets) {
          if (panel.content.isSelectedOrActive(cell)) {
            writeRole(cell.model, role, cell === active ? label : undefined);
          }
        }
      }
    });

    app.commands.addCommand(CommandIDs.cellProperties, {
      label: 'Cell Properties (mechnb)…',
      caption: 'Role, label, title, caption, validates and kind of the active cell',
      isEnabled: hasNotebook,
      execute: async () => {
        const panel = current();
        if (!panel) {
          return false;
        }
        let all: IRoleInfo[];
        try {
          all = await roles();
        } catch (error) {
          Notification.error(`mechnb: could not load the roles from the server: ${error}`);
          return false;
        }
        return editCellProperties(panel, all);
      }
    });

    app.commands.addCommand(CommandIDs.clearRole, {
      label: 'Clear mechnb Role',
      caption: 'Remove the role and label of the selected cells',
      isEnabled: hasNotebook,
      execute: () => {
        const panel = current();
        if (!panel) {
          return;
        }
        for (const cell of panel.content.widgets) {
          if (panel.content.isSelectedOrActive(cell)) {
            writeRole(cell.model, null);
          }
        }
      }
    });

    app.commands.addCommand(CommandIDs.checkArgument, {
      label: 'Check Argument (mechnb)',
      caption: 'Run the closing-loop checks on this notebook and list the findings',
      isEnabled: hasNotebook,
      execute: async () => {
        const panel = current();
        if (!panel) {
          return;
        }
        const view = findingsPanel();
        view.pending(panel.context.path);
        showRight(app, view, 700);
        await runCheck(panel, true);
      }
    });

    /**
     * Save, POST /mechnb/export, and show the files written — or, on failure, the CLI's
     * summary line (notifications are short) with a button that shows the whole log.
     */
    const runExport = async (
      panel: NotebookPanel,
      body: IExportRequest,
      what: string
    ): Promise<IExportResult | null> => {
      const path = panel.context.path;
      const id = Notification.emit(`Exporting ${path} to ${what}…`, 'in-progress', {
        autoClose: false
      });
      const fail = (message: string, log: string) => {
        Notification.update({
          id,
          type: 'error',
          message: `Export failed: ${message}`,
          autoClose: false,
          actions: log
            ? [{ label: 'Show log', callback: () => showLog(`Export of ${path}`, log) }]
            : []
        });
      };
      try {
        if (panel.context.model.dirty) {
          await saveOnce(panel.context);
        }
        const result = await requestAPI<IExportResult>('export', {
          method: 'POST',
          body: JSON.stringify(body)
        });
        const found = result.findings ?? [];
        const errors = found.filter(f => f.severity === 'error');
        const unresolved = found.filter(f => UNRESOLVED.includes(f.code)).length;
        const showFound = {
          label: 'Show findings',
          callback: () => {
            checkFound.set(panel, found);
            checked = panel;
            findingsPanel();
            showRight(app, findingsPanel(), 700);
            showAll(panel);
          }
        };
        if (!result.ok) {
          const first = errors[0];
          const message = first
            ? `${first.cell === null ? '' : `cell ${first.cell + 1}: `}${first.message}`
            : summary(result.log);
          Notification.update({
            id,
            type: 'error',
            message: `Export failed${counted(errors.length, unresolved)}: ${message}`,
            autoClose: false,
            actions: [
              ...(found.length ? [showFound] : []),
              { label: 'Show log', callback: () => showLog(`Export of ${path}`, result.log) }
            ]
          });
          return null;
        }
        const written = body.bundle ? result.bundles ?? [] : [result.tex, result.pdf];
        // an open tab of the PDF shows the new one
        if (result.pdf && docManager) {
          const open = docManager.findWidget(result.pdf);
          if (open) {
            void open.context.revert();
          }
        }
        const problems = [
          errors.length ? `${errors.length} error${errors.length === 1 ? '' : 's'}` : '',
          unresolved ? `${unresolved} undefined reference${unresolved === 1 ? '' : 's'}` : ''
        ].filter(Boolean);
        // written is a success; what the draft still needs is a to-do, not a failure
        Notification.update({
          id,
          type: 'success',
          message:
            `Wrote ${written.filter(Boolean).join(' and ')}.` +
            (problems.length
              ? ` The draft still has ${problems.join(' and ')} to fix (Show findings).`
              : ''),
          autoClose: problems.length ? false : 8000,
          actions: [
            ...(result.pdf
              ? [{
                  label: 'Open PDF',
                  callback: () =>
                    void app.commands.execute('docmanager:open', { path: result.pdf })
                }]
              : []),
            ...(body.bundle
              ? (result.bundles ?? []).map(bundle => ({
                  label: (result.bundles ?? []).length > 1
                    ? `Download ${PathExt.basename(bundle)}` : 'Download',
                  callback: () => void download(bundle)
                }))
              : []),
            ...(found.length ? [showFound] : [])
          ]
        });
        return result;
      } catch (reason) {
        fail(String((reason as Error)?.message ?? reason), '');
        return null;
      }
    };

    /** Download a file of the server as the browser downloads (the file browser's way). */
    const download = async (path: string): Promise<void> => {
      const url = await app.serviceManager.contents.getDownloadUrl(path);
      const link = document.createElement('a');
      link.href = url + (url.includes('?') ? '&' : '?') + 'download=1';
      link.download = PathExt.basename(path);
      document.body.appendChild(link);
      link.click();
      link.remove();
    };

    const engineArg = (args: any): IExportRequest['engine'] | undefined =>
      ['pdflatex', 'xelatex', 'lualatex'].includes(args.engine) ? args.engine : undefined;

    app.commands.addCommand(CommandIDs.exportPaper, {
      label: 'Export Paper to LaTeX (mechnb)',
      caption: 'Write the .tex (and the PDF when TeX is installed) next to the notebook',
      isEnabled: hasNotebook,
      execute: async args => {
        const panel = current();
        if (!panel) {
          return;
        }
        const body: IExportRequest = { path: panel.context.path };
        if (typeof args.pdf === 'boolean') {
          body.pdf = args.pdf;
        }
        body.engine = engineArg(args);
        return runExport(panel, body, 'LaTeX');
      }
    });

    const bundleCommands: [string, 'arxiv' | 'overleaf', string, string][] = [
      [CommandIDs.exportArxiv, 'arxiv', 'Export arXiv Bundle (mechnb)',
       'Write build/<name>/<name>-arxiv.tar.gz (.tex, .bbl, figures), checked with pdfLaTeX'],
      [CommandIDs.exportOverleaf, 'overleaf', 'Export Overleaf Project (mechnb)',
       'Write build/<name>/<name>-overleaf.zip (sources, .bib, latexmkrc), checked with latexmk']
    ];
    for (const [id, kind, label, caption] of bundleCommands) {
      app.commands.addCommand(id, {
        label,
        caption,
        isEnabled: hasNotebook,
        execute: async args => {
          const panel = current();
          if (!panel) {
            return;
          }
          // the bundle is compiled by its own check: no separate PDF run
          const body: IExportRequest = { path: panel.context.path, pdf: false, bundle: [kind] };
          body.engine = engineArg(args);
          return runExport(panel, body, kind === 'arxiv' ? 'an arXiv bundle' : 'an Overleaf project');
        }
      });
    }

    // ------------------------------------------------------------------ the paper preview
    const previews = new Map<string, PreviewPanel>();
    const goToSource = (panel: NotebookPanel, source: ISource): void => {
      if (selectCell(panel, source.cell_id, source.cell)) {
        app.shell.activateById(panel.id);
        if (source.line !== null) {
          placeCursor(panel, { line: source.line, column: 1 });
        }
      }
    };
    const onBuilt = (panel: NotebookPanel, result: IPreviewResult): void => {
      buildFound.set(panel, result.findings.filter(f => f.severity !== 'info'));
      showAll(panel);
    };
    /** The preview of `panel`, opened beside it (split right) in JupyterLab. */
    const openPreview = (panel: NotebookPanel): PreviewPanel => {
      let view = previews.get(panel.id);
      if (!view || view.isDisposed) {
        view = new PreviewPanel(panel.context, {
          id: panel.id,
          onSource: source => goToSource(panel, source),
          onBuilt: result => onBuilt(panel, result)
        });
        const created = view;
        previews.set(panel.id, view);
        view.disposed.connect(() => {
          if (previews.get(panel.id) === created) {
            previews.delete(panel.id);
          }
        });
      }
      if (!view.isAttached) {
        app.shell.add(view, 'main', { mode: 'split-right', ref: panel.id });
        app.shell.activateById(panel.id);
      }
      return view;
    };

    // Notebook 7 shows one document per browser tab: the preview opens in a tab of its own
    // (previewtab.ts) and the two tabs talk over a BroadcastChannel.
    const previewTabs = new Set<string>(); // notebooks whose preview tab has said hello
    if (!labShell) {
      app.docRegistry.addWidgetFactory(new PreviewFactory());
      previewChannel().addEventListener('message', (event: MessageEvent<PreviewMessage>) => {
        const message = event.data;
        const panel = message && tracker.find(p => p.context.path === message.path);
        if (message?.type === 'hello') {
          previewTabs.add(message.path);
        } else if (message?.type === 'bye') {
          previewTabs.delete(message.path);
        }
        if (!panel) {
          return;
        }
        if (message.type === 'source') {
          window.focus();
          goToSource(panel, message.source);
        } else if (message.type === 'built') {
          onBuilt(panel, message.result);
        }
      });
    }
    const openPreviewTab = async (panel: NotebookPanel): Promise<{ status: string }> => {
      if (previewTabs.has(panel.context.path)) {
        if (panel.context.model.dirty) {
          await saveOnce(panel.context); // the tab rebuilds on the save
        } else {
          tell({ type: 'saved', path: panel.context.path });
        }
        return { status: 'shown' };
      }
      await app.commands.execute('docmanager:open', {
        path: panel.context.path,
        factory: PREVIEW_FACTORY
      });
      return { status: 'opened' };
    };

    app.commands.addCommand(CommandIDs.preview, {
      label: 'Paper Preview (mechnb)',
      caption: 'Show the PDF of this notebook beside it, rebuilt on every save',
      isEnabled: hasNotebook,
      execute: async () => {
        const panel = current();
        if (!panel) {
          return null;
        }
        if (!labShell) {
          return openPreviewTab(panel);
        }
        return openPreview(panel).build();
      }
    });

    app.commands.addCommand(CommandIDs.showInPdf, {
      label: 'Show Cell in PDF (mechnb)',
      caption: 'Scroll the paper preview to where the active cell is typeset',
      isEnabled: hasNotebook,
      execute: async () => {
        const panel = current();
        const cell = panel?.content.activeCell;
        if (!panel || !cell) {
          return null;
        }
        const index = panel.content.activeCellIndex;
        const editing = panel.content.mode === 'edit' && cell.editor;
        const line = editing ? (cell.editor!.getCursorPosition().line + 1) : null;
        if (!labShell) {
          if (!previewTabs.has(panel.context.path)) {
            await openPreviewTab(panel); // its first build, then the place
            return null;
          }
          const place = await placeOf(panel.context.path, index, line);
          if (place) {
            tell({ type: 'reveal', path: panel.context.path, place });
          }
          return place;
        }
        const existing = previews.get(panel.id);
        const view = openPreview(panel);
        if (!existing || !view.lastResult) {
          await view.build();
        }
        const place = await placeOf(panel.context.path, index, line);
        if (place) {
          view.reveal(place);
        } else {
          Notification.info(`Cell ${index + 1} is not in the PDF (a note, code, or hidden cell).`, {
            autoClose: 4000
          });
        }
        return place;
      }
    });

    const maps = new Map<string, ArgumentMapPanel>();
    app.commands.addCommand(CommandIDs.argumentMap, {
      label: 'Argument Map (mechnb)',
      caption: 'The argument of this notebook, gap to implication, with its open ends',
      isEnabled: hasNotebook,
      execute: async () => {
        const panel = current();
        if (!panel) {
          return;
        }
        if (panel.context.model.dirty) {
          await saveOnce(panel.context);
        }
        let view = maps.get(panel.id);
        if (!view || view.isDisposed) {
          view = new ArgumentMapPanel(panel, (p, id, index) => {
            if (selectCell(p, id, index)) {
              app.shell.activateById(p.id);
            }
          });
          maps.set(panel.id, view);
        }
        if (!view.isAttached) {
          if (labShell) {
            app.shell.add(view, 'main', { mode: 'split-bottom', ref: panel.id });
          } else {
            showRight(app, view, 850);
          }
        }
        await view.refresh();
        app.shell.activateById(view.id);
      }
    });

    let moves: MovesPanel | null = null;
    app.commands.addCommand(CommandIDs.showMoves, {
      label: 'Show Abstract Moves (mechnb)',
      caption: 'Highlight the moves (context, gap, contribution…) of the active abstract cell',
      execute: () => {
        if (!moves || moves.isDisposed) {
          moves = new MovesPanel();
          moves.follow(tracker);
        }
        showRight(app, moves, 750);
      }
    });

    // The phrase panel asks the server (GET /mechnb/phrases): no kernel needed, the same in
    // JupyterLab and Notebook 7. `%mech phrases` still opens the kernel's ipywidgets panel.
    let phrases: PhrasesPanel | null = null;
    app.commands.addCommand(CommandIDs.openPhrases, {
      label: 'Open mechnb Phrases',
      caption: 'Open the phrase-lookup panel in the right side bar (no kernel needed)',
      execute: () => {
        if (!phrases || phrases.isDisposed) {
          phrases = new PhrasesPanel(tracker);
        }
        showRight(app, phrases, 760);
        phrases.focusSearch();
      }
    });

    let outlinePanel: OutlinePanel | null = null;
    app.commands.addCommand(CommandIDs.outline, {
      label: 'Paper Outline (mechnb)',
      caption: 'Sections and labelled statements of the paper, in the left side bar',
      execute: () => {
        if (!outlinePanel || outlinePanel.isDisposed) {
          outlinePanel = new OutlinePanel(tracker, (panel, cellId, index) => {
            if (selectCell(panel, cellId, index)) {
              app.shell.activateById(panel.id);
            }
          });
        }
        if (!outlinePanel.isAttached) {
          app.shell.add(outlinePanel, 'left', { rank: 650 });
        }
        app.shell.activateById(outlinePanel.id);
        outlinePanel.render();
      }
    });

    for (const command of [
      CommandIDs.outline,
      CommandIDs.setRole,
      CommandIDs.cellProperties,
      CommandIDs.clearRole,
      CommandIDs.checkArgument,
      CommandIDs.exportPaper,
      CommandIDs.exportArxiv,
      CommandIDs.exportOverleaf,
      CommandIDs.openPhrases,
      CommandIDs.showMoves,
      CommandIDs.preview,
      CommandIDs.showInPdf,
      CommandIDs.argumentMap
    ]) {
      palette?.addItem({ command, category: CATEGORY });
    }
    app.contextMenu.addItem({ command: CommandIDs.setRole, selector: '.jp-Notebook .jp-Cell', rank: 20 });
    app.contextMenu.addItem({ command: CommandIDs.cellProperties, selector: '.jp-Notebook .jp-Cell', rank: 20.5 });
    app.contextMenu.addItem({ command: CommandIDs.clearRole, selector: '.jp-Notebook .jp-Cell', rank: 21 });
    if (mainMenu) {
      relabelExportItem(mainMenu);
    }
    app.contextMenu.addItem({ command: CommandIDs.showInPdf, selector: '.jp-Notebook .jp-Cell', rank: 22 });
  }
};

/** Writing aids in markdown cells: reference/citation completion and spell checking. */
const writingPlugin: JupyterFrontEndPlugin<void> = {
  id: 'mechnb:writing',
  description: 'mechnb: \\cref{ and [@ completion from the notebook, spell checking of prose.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ICompletionProviderManager, IEditorExtensionRegistry],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    completion: ICompletionProviderManager | null,
    extensions: IEditorExtensionRegistry | null
  ) => {
    const references = new ReferenceCompletionProvider(app.serviceManager.contents);
    completion?.registerProvider(references); // Tab in a markdown cell lists them too
    autoOpenCompletion(tracker, references);
    if (extensions) {
      registerSpellcheck(extensions);
    }
  }
};

export default [plugin, paperPlugin, writingPlugin, treePlugin, mathjaxPlugin];
