/**
 * Notebook 7 shows one document per browser tab, so there the paper preview opens in a tab of
 * its own (`/edit/<notebook>?factory=mechnb Paper Preview`): a document widget on the same
 * notebook file whose content is the PreviewPanel. The two tabs talk over a BroadcastChannel
 * (same origin): the notebook's tab says when it saved and where a cell is in the PDF; the
 * preview's tab says which cell a click in the PDF came from and what the last build found.
 */
import { ABCWidgetFactory, DocumentRegistry, DocumentWidget } from '@jupyterlab/docregistry';
import { INotebookModel } from '@jupyterlab/notebook';

import { IPlace, IPreviewResult, ISource, PreviewPanel } from './preview';

/** The widget factory's name (no "Notebook" in it: Notebook 7 routes those to /notebooks). */
export const PREVIEW_FACTORY = 'mechnb Paper Preview';

/** What one tab tells the others about a notebook's preview. */
export type PreviewMessage =
  | { type: 'saved'; path: string }
  | { type: 'reveal'; path: string; place: IPlace }
  | { type: 'source'; path: string; source: ISource }
  | { type: 'built'; path: string; result: IPreviewResult }
  | { type: 'hello'; path: string }
  | { type: 'bye'; path: string };

let channel: BroadcastChannel | null = null;

/** The page's channel to the other tabs of this server. */
export function previewChannel(): BroadcastChannel {
  channel ??= new BroadcastChannel('mechnb-preview');
  return channel;
}

/** Tell the other tabs. */
export function tell(message: PreviewMessage): void {
  previewChannel().postMessage(message);
}

/** The preview as a document of its own (Notebook 7's preview tab). */
export class PreviewFactory extends ABCWidgetFactory<
  DocumentWidget<PreviewPanel, INotebookModel>,
  INotebookModel
> {
  constructor() {
    super({
      name: PREVIEW_FACTORY,
      label: 'Paper Preview (mechnb)',
      fileTypes: ['notebook'],
      modelName: 'notebook',
      preferKernel: false,
      canStartKernel: false
    });
  }

  protected createNewWidget(
    context: DocumentRegistry.IContext<INotebookModel>
  ): DocumentWidget<PreviewPanel, INotebookModel> {
    const content = new PreviewPanel(context, {
      id: `tab-${context.path}`,
      onSource: source => tell({ type: 'source', path: context.path, source }),
      onBuilt: result => tell({ type: 'built', path: context.path, result })
    });
    const widget = new DocumentWidget({ content, context });
    widget.addClass('jp-mechnb-preview-tab');
    const listen = (event: MessageEvent<PreviewMessage>): void => {
      const message = event.data;
      if (!message || message.path !== context.path) {
        return;
      }
      if (message.type === 'saved') {
        content.scheduleBuild();
      } else if (message.type === 'reveal') {
        content.reveal(message.place);
      }
    };
    previewChannel().addEventListener('message', listen);
    const bye = (): void => tell({ type: 'bye', path: context.path });
    window.addEventListener('pagehide', bye);
    widget.disposed.connect(() => {
      previewChannel().removeEventListener('message', listen);
      window.removeEventListener('pagehide', bye);
      bye();
    });
    widget.title.label = `Preview: ${context.path.split('/').pop() ?? ''}`;
    void context.ready.then(async () => {
      await content.build();
      tell({ type: 'hello', path: context.path });
    });
    return widget;
  }
}
