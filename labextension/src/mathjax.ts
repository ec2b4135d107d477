/**
 * MathJax in the notebook (issue 37).
 *
 * JupyterLab typesets every cell with one MathJax document, and MathJax's TeX input keeps every
 * `\label` it has seen: a cell rendered again after an edit turned red ("Label 'eq:product'
 * multiply defined") until the page was reloaded. Before each typeset this plugin resets the TeX
 * input's label table (`TeX.reset()`, which clears `tags.allLabels`), so a cell renders alike
 * however often it is edited. Duplicate labels across cells are the checker's business
 * (MECH labels-unique), not a red equation.
 *
 * References in markdown prose (`\ref`, `\eqref`, `\cref`, `\Cref`, `\autoref`) read as
 * references to the notebook's cells instead of raw TeX or MathJax's "(???)": `\eqref{eq:x}` →
 * "(eq:x)", `\cref{thm:main}` → "Theorem thm:main" (the kind from the labelled cell's role, or
 * the label's prefix); a click selects the cell with that label. Numbers are the PDF's
 * business: the notebook shows labels, never a number it would have to guess.
 */
import { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { ILatexTypesetter } from '@jupyterlab/rendermime';

import { cellRole, selectCell } from './cells';
import { notebookLabels } from './properties';

/** Names a reference gets from the role of the cell that carries its label. */
const ROLE_NAMES: Record<string, string> = {
  theorem: 'Theorem',
  lemma: 'Lemma',
  proposition: 'Proposition',
  corollary: 'Corollary',
  claim: 'Claim',
  definition: 'Definition',
  assumption: 'Assumption',
  remark: 'Remark',
  proof: 'Proof',
  formula: 'Eq.',
  figure: 'Figure',
  experiment: 'Figure',
  result: 'Result',
  setup: 'Section',
  appendix: 'Appendix'
};

/** Names from a label's prefix (`eq:`, `fig:`…), cleveref's own defaults. */
const PREFIX_NAMES: Record<string, string> = {
  eq: 'Eq.',
  eqn: 'Eq.',
  fig: 'Figure',
  tab: 'Table',
  sec: 'Section',
  app: 'Appendix',
  thm: 'Theorem',
  lem: 'Lemma',
  prop: 'Proposition',
  cor: 'Corollary',
  def: 'Definition',
  asm: 'Assumption',
  rem: 'Remark',
  claim: 'Claim'
};

/** Math (skipped: MathJax's) or a reference (rewritten), in a text node of rendered markdown. */
const TOKEN =
  /(\$\$[\s\S]*?\$\$|\$(?:\\.|[^$\\])+\$|\\\([\s\S]*?\\\)|\\\[[\s\S]*?\\\]|\\begin\{([a-zA-Z*]+)\}[\s\S]*?\\end\{\2\})|\\(ref|eqref|cref|Cref|autoref|cpageref|Cpageref|pageref)\*?\s*\{([^{}]*)\}/g;

/** Elements whose text is never a reference in prose. */
const SKIP = 'code, pre, script, style, a, mjx-container, .MathJax, .mechnb-ref';

interface ILabelPlace {
  cell: number;
  name: string;
}

/** label → the cell that carries it and what to call it. */
function labelPlaces(panel: NotebookPanel): Map<string, ILabelPlace> {
  const places = new Map<string, ILabelPlace>();
  const cells = panel.content.model?.cells;
  for (const [label, cell] of notebookLabels(panel)) {
    const model = cells?.get(cell);
    const role = model ? cellRole(model) : null;
    let name = '';
    if (role && role.label === label) {
      name = ROLE_NAMES[role.role] ?? '';
    } else if (model && new RegExp(`\\\\label\\s*\\{${escapeRe(label)}\\}`).test(
      model.sharedModel.getSource())) {
      name = 'Eq.'; // a \label inside the cell's math
    }
    const prefix = label.split(':')[0];
    if (!name || (name === 'Eq.' && PREFIX_NAMES[prefix] && PREFIX_NAMES[prefix] !== 'Eq.')) {
      name = PREFIX_NAMES[prefix] ?? name;
    }
    places.set(label, { cell, name });
  }
  return places;
}

function escapeRe(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The reference element for `\command{labels}`. */
function referenceNode(
  command: string,
  labels: string[],
  places: Map<string, ILabelPlace>,
  panel: NotebookPanel | null
): HTMLElement {
  const holder = document.createElement('span');
  holder.className = 'mechnb-refs';
  labels.forEach((label, i) => {
    if (i > 0) {
      holder.append(i === labels.length - 1 ? ' and ' : ', ');
    }
    const place = places.get(label);
    const ref = document.createElement('span');
    ref.className = 'mechnb-ref';
    ref.dataset.label = label;
    if (!place) {
      ref.classList.add('mechnb-ref-missing');
      ref.textContent = `?? ${label}`;
      ref.title = `No cell of this notebook has the label “${label}”.`;
    } else {
      const named = command === 'cref' || command === 'Cref' || command === 'autoref';
      const text = command === 'eqref' ? `(${label})` : label;
      ref.textContent = named && place.name
        ? `${place.name} ${place.name === 'Eq.' ? `(${label})` : label}`
        : text;
      ref.title = `\\${command}{${label}}: cell ${place.cell + 1} (the PDF numbers it)`;
      ref.setAttribute('role', 'link');
      ref.tabIndex = 0;
      if (panel) {
        const go = () => selectCell(panel, null, place.cell);
        ref.addEventListener('click', go);
        ref.addEventListener('keydown', event => {
          if (event.key === 'Enter') {
            go();
          }
        });
      }
    }
    holder.append(ref);
  });
  return holder;
}

/** Rewrite the prose references under `root` (math, code and links left alone). */
export function rewriteReferences(
  root: HTMLElement,
  places: Map<string, ILabelPlace>,
  panel: NotebookPanel | null
): void {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node as Text;
    if (text.data.includes('ref') && !text.parentElement?.closest(SKIP)) {
      texts.push(text);
    }
  }
  for (const text of texts) {
    const data = text.data;
    const parts: (string | HTMLElement)[] = [];
    let last = 0;
    TOKEN.lastIndex = 0;
    for (let m = TOKEN.exec(data); m; m = TOKEN.exec(data)) {
      if (m[1] !== undefined) {
        continue; // math: MathJax's
      }
      // Theorem~\ref{x}: the tie is a no-break space, as in the PDF
      parts.push(data.slice(last, m.index).replace(/~$/, '\u00a0'));
      const labels = m[4].split(',').map(l => l.trim()).filter(Boolean);
      parts.push(referenceNode(m[3], labels, places, panel));
      last = m.index + m[0].length;
    }
    if (last === 0) {
      continue;
    }
    parts.push(data.slice(last));
    text.replaceWith(...parts);
  }
}

/** The MathJax document of JupyterLab's typesetter (mathjax-extension), when it is that one. */
interface IMathJaxTypesetter extends ILatexTypesetter {
  mathDocument?: () => Promise<{ inputJax?: { reset?: () => void }[] }>;
}

export const mathjaxPlugin: JupyterFrontEndPlugin<void> = {
  id: 'mechnb:mathjax',
  description: 'Labelled equations render alike however often a cell is edited; \\ref/\\eqref/' +
    '\\cref read as references to the notebook’s cells.',
  autoStart: true,
  requires: [INotebookTracker],
  optional: [ILatexTypesetter],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    typesetter: IMathJaxTypesetter | null
  ) => {
    if (!typesetter || typeof typesetter.typeset !== 'function') {
      return;
    }
    const typeset = typesetter.typeset.bind(typesetter);
    typesetter.typeset = async (node: HTMLElement): Promise<void> => {
      try {
        // a cell being rendered may not be attached yet: then the current notebook's
        const panel =
          tracker.find(p => p.node.contains(node)) ??
          (node.closest('.jp-Notebook') || !node.isConnected ? tracker.currentWidget : null);
        if (panel) {
          rewriteReferences(node, labelPlaces(panel), panel);
        }
        if (typeof typesetter.mathDocument === 'function') {
          const doc = await typesetter.mathDocument();
          for (const jax of doc.inputJax ?? []) {
            jax.reset?.(); // TeX: tags.reset() clears the labels seen so far
          }
        }
      } catch (error) {
        console.warn('mechnb: MathJax preparation failed', error);
      }
      return typeset(node);
    };
  }
};
