import { NotebookPanel } from '@jupyterlab/notebook';
import { Kernel, KernelMessage } from '@jupyterlab/services';
import { JSONObject } from '@lumino/coreutils';

import { COMM_TARGET, PROTOCOL } from './commands';
import { ICellMessage } from './cells';

/** What the kernel may ask of the notebook panel the bridge belongs to. */
export interface IBridgeHandlers {
  insertCells(
    panel: NotebookPanel,
    cells: ICellMessage[],
    afterCellId: string | null
  ): boolean;
  insertText(panel: NotebookPanel, text: string): boolean;
  openSidebar(panel: NotebookPanel, modelId: string, title: string): void;
  selectCell(panel: NotebookPanel, cellId: string): boolean;
}

/** What this frontend announces in its `hello`. */
export const CAPABILITIES = [
  'insert_cells',
  'insert_text',
  'open_sidebar',
  'select_cell'
];

const wired = new WeakSet<Kernel.IKernelConnection>();

/**
 * Connect a notebook panel to mechnb's kernel side (mechnb/_bridge.py).
 *
 * The comm target `mechnb` is registered on every kernel connection of the panel: the kernel opens
 * a comm to it at `%load_ext mechnb`, and this frontend answers `hello` with its client id. When
 * the panel connects to a kernel that has already loaded mechnb (page reload, second client), it
 * opens the comm itself. Messages whose `session` is not this connection's client id are ignored,
 * so in a shared (real-time collaboration) notebook only the client that ran the cell acts.
 */
export function connectBridge(
  panel: NotebookPanel,
  handlers: IBridgeHandlers,
  version: string
): void {
  const hello = (kernel: Kernel.IKernelConnection): JSONObject => ({
    protocol: PROTOCOL,
    method: 'hello',
    client_id: kernel.clientId,
    version,
    capabilities: CAPABILITIES
  });

  const wire = (kernel: Kernel.IKernelConnection, comm: Kernel.IComm) => {
    comm.onMsg = (msg: KernelMessage.ICommMsgMsg) => {
      const data = msg.content.data as JSONObject;
      if (data.protocol !== PROTOCOL || data.session !== kernel.clientId) {
        return;
      }
      dispatch(panel, handlers, data);
    };
  };

  const attach = () => {
    const kernel = panel.sessionContext.session?.kernel;
    if (!kernel || wired.has(kernel)) {
      return;
    }
    wired.add(kernel);
    kernel.registerCommTarget(COMM_TARGET, comm => {
      wire(kernel, comm);
      comm.send(hello(kernel));
    });
    // A kernel that loaded mechnb before this client connected has comms with our target.
    void kernel
      .requestCommInfo({ target_name: COMM_TARGET })
      .then(reply => {
        const content = reply.content;
        if (content.status !== 'ok' || Object.keys(content.comms).length === 0) {
          return;
        }
        const comm = kernel.createComm(COMM_TARGET);
        wire(kernel, comm);
        comm.open(hello(kernel));
      })
      .catch(() => undefined);
  };

  panel.sessionContext.kernelChanged.connect(attach);
  void panel.sessionContext.ready.then(attach);
  attach();
}

function dispatch(
  panel: NotebookPanel,
  handlers: IBridgeHandlers,
  data: JSONObject
): void {
  switch (data.method) {
    case 'insert_cells':
      handlers.insertCells(
        panel,
        (data.cells as unknown as ICellMessage[]) ?? [],
        typeof data.after_cell_id === 'string' ? data.after_cell_id : null
      );
      break;
    case 'insert_text':
      if (typeof data.text === 'string') {
        handlers.insertText(panel, data.text);
      }
      break;
    case 'open_sidebar':
      if (typeof data.model_id === 'string') {
        handlers.openSidebar(
          panel,
          data.model_id,
          typeof data.title === 'string' ? data.title : 'mechnb'
        );
      }
      break;
    case 'select_cell':
      if (typeof data.cell_id === 'string') {
        handlers.selectCell(panel, data.cell_id);
      }
      break;
    default:
      break;
  }
}
