import { URLExt } from '@jupyterlab/coreutils';
import { ServerConnection } from '@jupyterlab/services';

/** One finding as returned by GET /mechnb/check (Finding.to_json()). */
export interface IFinding {
  code: string;
  name: string;
  severity: 'error' | 'warning' | 'info';
  message: string;
  cell: number | null;
  line: number | null;
  column: number | null;
  labels: string[];
  cell_id: string | null;
}

/** One role of the registry as returned by GET /mechnb/roles. */
export interface IRoleInfo {
  name: string;
  group: string;
  purpose: { en: string; zh: string };
  label_prefix: string | null;
}

/** The reply of POST /mechnb/export. */
export interface IExportResult {
  ok: boolean;
  returncode: number;
  tex: string | null;
  pdf: string | null;
  /** The bundles written (paths relative to the server root), when asked for. */
  bundles?: string[];
  log: string;
  /** The export's findings (the checks and the exporter's own, TeX errors included). */
  findings?: IFinding[];
}

/** The body of POST /mechnb/export. */
export interface IExportRequest {
  path: string;
  pdf?: boolean;
  engine?: 'pdflatex' | 'xelatex' | 'lualatex';
  bundle?: ('arxiv' | 'overleaf')[];
}

/**
 * Call the mechnb server extension (mechnb/serverext.py) and return its JSON reply.
 */
export async function requestAPI<T>(
  endPoint: string,
  init: RequestInit = {}
): Promise<T> {
  const settings = ServerConnection.makeSettings();
  const url = URLExt.join(settings.baseUrl, 'mechnb', endPoint);
  let response: Response;
  try {
    response = await ServerConnection.makeRequest(url, init, settings);
  } catch (error) {
    throw new ServerConnection.NetworkError(error as TypeError);
  }
  const text = await response.text();
  let data: any = text;
  if (text.length > 0) {
    try {
      data = JSON.parse(text);
    } catch {
      // not JSON: keep the text for the error message
    }
  }
  if (!response.ok) {
    const message =
      data && typeof data === 'object' && data.message ? data.message : text;
    throw new ServerConnection.ResponseError(response, message);
  }
  return data as T;
}

/** One sentence of POST /mechnb/moves (mechnb.moves.analyser.LabelledSentence.to_json()). */
export interface IMoveSentence {
  text: string;
  moves: string[];
  cues: { move: string; score: number; cue: string; rule: string }[];
}

/** The reply of POST /mechnb/moves. */
export interface IMovesResult {
  sentences: IMoveSentence[];
  missing: string[];
  order: string[];
  lang: 'en' | 'zh';
  templated: string[];
  out_of_order: { move: string; after: string; sentence: number }[];
  purpose: { [move: string]: string };
  suggestions: { [move: string]: { id: string; text: string }[] };
}
