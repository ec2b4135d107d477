/**
 * Notebook 7's file tree: a "Mechanism Paper…" entry in its "New" drop-down (next to Notebook,
 * Terminal, Console, Text File, New Folder), which runs `mechnb:new-paper` in the folder shown.
 *
 * Notebook 7 keeps that menu to itself (no token); it is the first menu of the toolbar item
 * named `new-dropdown` of the default file browser, and it is emptied and refilled whenever the
 * kernel specs change, so the entry is added again after each refill. JupyterLab has no such
 * drop-down (its File › New menu and the Launcher carry the entry already).
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { IDefaultFileBrowser } from '@jupyterlab/filebrowser';
import { Menu, MenuBar } from '@lumino/widgets';

import { CommandIDs } from './commands';

const ATTEMPTS = 40;
const RETRY_MS = 250;

/** The "New" menu of Notebook 7's file browser toolbar, once the toolbar is built. */
function newMenu(browser: IDefaultFileBrowser): Menu | null {
  const names = Array.from(browser.toolbar.names());
  const at = names.indexOf('new-dropdown');
  if (at < 0) {
    return null;
  }
  const item = Array.from(browser.toolbar.children())[at];
  return item instanceof MenuBar && item.menus.length ? item.menus[0] : null;
}

function addEntry(menu: Menu): void {
  if (!menu.items.some(i => i.command === CommandIDs.newPaper)) {
    // after the kernels' "Notebook" entries, before Terminal / Console / files
    const kernels = menu.items.filter(i => i.command === 'notebook:create-new').length;
    menu.insertItem(kernels, { command: CommandIDs.newPaper });
  }
}

export const treePlugin: JupyterFrontEndPlugin<void> = {
  id: 'mechnb:tree-new-menu',
  description: "A Mechanism Paper entry in Notebook 7's file tree \"New\" menu.",
  autoStart: true,
  optional: [IDefaultFileBrowser],
  activate: (app: JupyterFrontEnd, browser: IDefaultFileBrowser | null) => {
    if (!browser) {
      return;
    }
    let tries = 0;
    const find = (): void => {
      const menu = newMenu(browser);
      if (menu) {
        addEntry(menu);
        // Notebook 7 clears and refills the menu on this signal (connected before ours)
        app.serviceManager.kernelspecs.specsChanged.connect(() => addEntry(menu));
      } else if (++tries < ATTEMPTS) {
        window.setTimeout(find, RETRY_MS);
      }
    };
    void app.restored.then(find);
  }
};
