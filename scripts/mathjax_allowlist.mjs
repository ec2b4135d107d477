// Generate mechnb/data/latex/mathjax3.json: every control sequence, environment and special
// character the MathJax 3 TeX input accepts, configured exactly as JupyterLab 4 configures it for
// rendering markdown math.  The list is read from the real MathJax package, never typed by hand.
//
// How to run (from the repository root; nothing is installed into the repository):
//
//   npm install --prefix /tmp/mjx mathjax-full@3.2.2
//   NODE_PATH=/tmp/mjx/node_modules node scripts/mathjax_allowlist.mjs > mechnb/data/latex/mathjax3.json
//
// (Alternatively set MATHJAX_FULL=/tmp/mjx/node_modules/mathjax-full instead of NODE_PATH.)
//
// What JupyterLab does (@jupyterlab/mathjax-extension, packages/mathjax-extension/src/index.ts,
// Private.ensureMathDocument; the same code is in the built bundle
// share/jupyter/lab/static/jlab_core.*.js of the jupyterlab wheel):
//
//   void import('mathjax-full/js/input/tex/require/RequireConfiguration');
//   ... import('mathjax-full/js/input/tex/AllPackages') ...
//   new TeX({packages: AllPackages.concat('require'), inlineMath: [['$','$'],['\\(','\\)']],
//            displayMath: [['$$','$$'],['\\[','\\]']], processEscapes: true,
//            processEnvironments: true})
//
// with the SafeHandler (ui/safe) and the AssistiveMmlHandler around the HTML handler.  No
// `autoload` package: every package of AllPackages is loaded eagerly.  The script does the same
// imports in the same order, builds the same TeX input jax and walks its parse configuration
// (ParseOptions.handlers: one SubHandler per kind, each a prioritized list of SymbolMaps), so a
// name is listed under the package whose map the parser consults first.  Packages whose
// configuration is registered (imported by AllPackages.js) but that are not in the package list
// (physics, setoptions, colorv2) are listed apart under "require_only": JupyterLab only reaches
// them through `\require{...}`.
//
// If the JupyterLab static files are found (.venv/share/jupyter/lab/static, or the directory in
// JUPYTERLAB_STATIC), the script checks that they still match the versions and configuration
// pinned below and stops with an error if they do not.

import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';

/** The mathjax-full version JupyterLab's bundle reports (components/version.js: VERSION). */
const MATHJAX_FULL = '3.2.2';
/** The JupyterLab release whose bundle was read. */
const JUPYTERLAB = '4.6.6';
const MATHJAX_EXTENSION =
  '@jupyterlab/mathjax-extension ' + JUPYTERLAB + ' (dependency mathjax-full ^3.2.2): ' +
  "new TeX({packages: AllPackages.concat('require'), inlineMath: [['$','$'],['\\\\(','\\\\)']], " +
  "displayMath: [['$$','$$'],['\\\\[','\\\\]']], processEscapes: true, processEnvironments: true}), " +
  'CHTML output, SafeHandler + AssistiveMmlHandler; no autoload package, every package loaded ' +
  'eagerly; RequireConfiguration imported before AllPackages';

function fail(message) {
  process.stderr.write('mathjax_allowlist: ' + message + '\n');
  process.exit(1);
}

// ---------------------------------------------------------------------------------------------
// Locate mathjax-full and check its version.

const localRequire = createRequire(import.meta.url);
let mjRoot;
if (process.env.MATHJAX_FULL) {
  mjRoot = path.resolve(process.env.MATHJAX_FULL);
} else {
  try {
    mjRoot = path.dirname(localRequire.resolve('mathjax-full/package.json'));
  } catch {
    fail('mathjax-full not found; run: npm install --prefix /tmp/mjx mathjax-full@' +
      MATHJAX_FULL + ' and set NODE_PATH=/tmp/mjx/node_modules');
  }
}
const mjRequire = createRequire(path.join(mjRoot, 'package.json'));
const mjVersion = JSON.parse(fs.readFileSync(path.join(mjRoot, 'package.json'), 'utf8')).version;
if (mjVersion !== MATHJAX_FULL) {
  fail(`mathjax-full ${mjVersion} found at ${mjRoot}; JupyterLab ${JUPYTERLAB} ships ` +
    `${MATHJAX_FULL} (npm install --prefix /tmp/mjx mathjax-full@${MATHJAX_FULL})`);
}
const mj = (p) => mjRequire('./js/' + p);

// ---------------------------------------------------------------------------------------------
// Optional cross-check against the JupyterLab bundle on this machine.

function checkJupyterLabBundle() {
  const candidates = [process.env.JUPYTERLAB_STATIC, '.venv/share/jupyter/lab/static']
    .filter(Boolean);
  const dir = candidates.find((d) => fs.existsSync(path.join(d, 'package.json')));
  if (!dir) {
    process.stderr.write('mathjax_allowlist: no JupyterLab static files found; ' +
      'pinned versions not cross-checked\n');
    return;
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (pkg.version !== JUPYTERLAB) {
    fail(`${dir} is JupyterLab ${pkg.version}, the script pins ${JUPYTERLAB}: ` +
      'read the new bundle and update the pins');
  }
  let sawVersion = false;
  let sawConfig = false;
  for (const name of fs.readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const text = fs.readFileSync(path.join(dir, name), 'utf8');
    if (text.includes(`VERSION="${MATHJAX_FULL}"`)) sawVersion = true;
    if (/packages:[A-Za-z_$][\w$]*\.concat\("require"\),inlineMath/.test(text)) sawConfig = true;
  }
  if (!sawVersion) fail(`no MathJax VERSION="${MATHJAX_FULL}" in ${dir}`);
  if (!sawConfig) fail(`no 'packages: AllPackages.concat("require")' in ${dir}`);
}
checkJupyterLabBundle();

// ---------------------------------------------------------------------------------------------
// Build the TeX input jax as JupyterLab does.

// Record, for every command and environment map, the parse-method name each entry was declared
// with (the key into the map's function table, as MathJax's source spells it).  The map classes
// are wrapped before any package module constructs its maps; the wrappers only take notes.
const SymbolMap = mj('input/tex/SymbolMap.js');
const declaredMethod = new Map(); // map name -> Map(entry name -> method name)
function noteMethods(mapName, json) {
  const names = new Map();
  for (const [key, value] of Object.entries(json)) {
    names.set(key, typeof value === 'string' ? value : value[0]);
  }
  declaredMethod.set(mapName, names);
}
for (const className of ['MacroMap', 'CommandMap']) {
  const Original = SymbolMap[className];
  SymbolMap[className] = class extends Original {
    constructor(name, json, functionMap) {
      super(name, json, functionMap);
      noteMethods(name, json);
    }
  };
}
{
  const Original = SymbolMap.EnvironmentMap;
  SymbolMap.EnvironmentMap = class extends Original {
    constructor(name, parser, json, functionMap) {
      super(name, parser, json, functionMap);
      noteMethods(name, json);
    }
  };
}

mj('input/tex/require/RequireConfiguration.js');
const { TeX } = mj('input/tex.js');
const { AllPackages } = mj('input/tex/AllPackages.js');
const { ConfigurationHandler } = mj('input/tex/Configuration.js');
const PACKAGES = AllPackages.concat('require');
const tex = new TeX({
  packages: PACKAGES,
  inlineMath: [['$', '$'], ['\\(', '\\)']],
  displayMath: [['$$', '$$'], ['\\[', '\\]']],
  processEscapes: true,
  processEnvironments: true,
});

// Maps a package creates in its init step (Configuration.local), holding the user's own
// definitions; they are empty here and are attributed by name.
const DYNAMIC_MAPS = {
  'new-Command': 'newcommand',
  'new-Delimiter': 'newcommand',
  'new-Environment': 'newcommand',
  'ams-declare-ops': 'ams',
  'mathtools-paired-delims': 'mathtools',
  'configmacros-map': 'configmacros',
  'configmacros-env-map': 'configmacros',
};

/** Map name -> package, from every registered configuration's handler lists. */
const mapPackage = new Map();
for (const pkg of ConfigurationHandler.keys()) {
  const handler = ConfigurationHandler.get(pkg).handler || {};
  for (const kind of Object.keys(handler)) {
    for (const mapName of handler[kind]) {
      // A map listed by two packages (base's 'command' RegExpMap is also text-base's) is
      // attributed to both; packageOf() refuses to guess for such a map.
      const known = mapPackage.get(mapName);
      mapPackage.set(mapName, known && known !== pkg ? `${known}|${pkg}` : pkg);
    }
  }
}
for (const [mapName, pkg] of Object.entries(DYNAMIC_MAPS)) mapPackage.set(mapName, pkg);

function packageOf(map) {
  const pkg = mapPackage.get(map.name);
  if (!pkg) fail(`map ${map.name} belongs to no known package`);
  if (pkg.includes('|')) fail(`map ${map.name} is listed by several packages: ${pkg}`);
  return pkg;
}

const { CharacterMap, DelimiterMap, RegExpMap } = SymbolMap;

/** The parse-method name `key` of `map` was declared with. */
function methodOf(map, key) {
  const name = declaredMethod.get(map.name)?.get(key);
  if (!name) fail(`no declared method for ${key} in map ${map.name}`);
  return name;
}

/** Kind of the control sequence `key` of `map`. */
function macroKind(map, key) {
  if (map instanceof DelimiterMap) return 'delimiter';
  if (map instanceof CharacterMap) return 'symbol';
  const method = methodOf(map, key);
  if (method === 'MathFont') return 'math-alphabet';
  if (method === 'Macro') return 'macro';
  return 'command';
}

function sortedObject(entries) {
  const out = {};
  for (const key of Object.keys(entries).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    out[key] = entries[key];
  }
  return out;
}

function mapsOf(parseOptions, kind) {
  const handler = parseOptions.handlers.get(kind);
  return handler ? Array.from(handler._configuration, (x) => x.item) : [];
}

/**
 * Walk the macro, delimiter, environment and character sub-handlers of one parse configuration.
 * The first map in priority order that holds a name is the one the parser uses.
 */
function collect(parseOptions) {
  const macros = {};
  const environments = {};
  const delimiterChars = {};
  const specials = {};
  const remember = (table, key, record, pkg) => {
    if (!(key in table)) {
      table[key] = record;
    } else if (table[key].package !== pkg) {
      const shadowed = table[key].shadows || [];
      if (!shadowed.includes(pkg)) table[key].shadows = [...shadowed, pkg].sort();
    }
  };
  for (const map of mapsOf(parseOptions, 'macro')) {
    if (map instanceof RegExpMap) fail(`unexpected RegExpMap ${map.name} in the macro handler`);
    const pkg = packageOf(map);
    for (const [key, entry] of map.map) {
      // A DelimiterMap in the macro handler is looked up as '\\' + name.
      let name = key;
      if (map instanceof DelimiterMap) {
        if (!key.startsWith('\\')) continue;
        name = key.slice(1);
      }
      const record = { package: pkg, kind: macroKind(map, key) };
      if (!(map instanceof CharacterMap)) {
        record.method = methodOf(map, key);
        if (record.kind === 'macro') {
          if (typeof entry.args[0] !== 'string') fail(`macro ${key} has no expansion`);
          record.expansion = entry.args[0];
        }
      }
      remember(macros, name, record, pkg);
    }
  }
  for (const map of mapsOf(parseOptions, 'delimiter')) {
    const pkg = packageOf(map);
    for (const key of map.map.keys()) {
      if (key.startsWith('\\')) {
        remember(macros, key.slice(1), { package: pkg, kind: 'delimiter' }, pkg);
      } else {
        remember(delimiterChars, key, { package: pkg }, pkg);
      }
    }
  }
  for (const map of mapsOf(parseOptions, 'environment')) {
    const pkg = packageOf(map);
    for (const key of map.map.keys()) {
      remember(environments, key, { package: pkg, method: methodOf(map, key) }, pkg);
    }
  }
  for (const map of mapsOf(parseOptions, 'character')) {
    if (map instanceof RegExpMap) continue; // letters, digits, the '\' that starts a command
    const pkg = packageOf(map);
    for (const key of map.map.keys()) {
      const record = { package: pkg };
      record.method = map instanceof CharacterMap ? 'symbol' : methodOf(map, key);
      remember(specials, key, record, pkg);
    }
  }
  for (const table of [macros, environments, delimiterChars, specials]) {
    for (const record of Object.values(table)) {
      // Within each record: package first, then the rest alphabetically.
      const ordered = sortedObject(record);
      for (const k of Object.keys(record)) delete record[k];
      Object.assign(record, { package: ordered.package }, ordered);
    }
  }
  return {
    macros: sortedObject(macros),
    environments: sortedObject(environments),
    delimiterChars: sortedObject(delimiterChars),
    specials: sortedObject(specials),
  };
}

const math = collect(tex.parseOptions);
const textOptions = tex.parseOptions.packageData.get('textmacros').parseOptions;
const text = collect(textOptions);

// Dynamic maps must be empty: nothing user-defined may leak into the list.
for (const mapName of Object.keys(DYNAMIC_MAPS)) {
  const map = mj('input/tex/MapHandler.js').MapHandler.getMap(mapName);
  if (map && map.map.size) fail(`dynamic map ${mapName} is not empty`);
}

// Registered but not in the package list: reachable only through \require.
const requireOnly = {};
const loaded = new Set(Array.from(tex.configuration.configurations, (x) => x.item.name));
const MapHandler = mj('input/tex/MapHandler.js').MapHandler;
const requireOptions = tex.parseOptions.options.require;
for (const pkg of Array.from(ConfigurationHandler.keys()).sort()) {
  if (loaded.has(pkg) || pkg === 'text-base') continue;
  const handler = ConfigurationHandler.get(pkg).handler || {};
  const macroNames = new Set();
  const envNames = new Set();
  for (const kind of ['macro', 'delimiter']) {
    for (const mapName of handler[kind] || []) {
      const map = MapHandler.getMap(mapName);
      for (const key of map.map.keys()) {
        if (map instanceof DelimiterMap) {
          if (key.startsWith('\\')) macroNames.add(key.slice(1));
        } else {
          macroNames.add(key);
        }
      }
    }
  }
  for (const mapName of handler.environment || []) {
    for (const key of MapHandler.getMap(mapName).map.keys()) envNames.add(key);
  }
  const allow = requireOptions.allow;
  const ext = requireOptions.prefix + pkg;
  const allowed = Object.prototype.hasOwnProperty.call(allow, ext) ? allow[ext]
    : Object.prototype.hasOwnProperty.call(allow, pkg) ? allow[pkg] : requireOptions.defaultAllow;
  requireOnly[pkg] = {
    environments: [...envNames].sort(),
    macros: [...macroNames].sort(),
    require_allowed: Boolean(allowed),
  };
}

// ---------------------------------------------------------------------------------------------
// Output: sorted keys, one entry per line.

const ABOUT =
  'Control sequences, environments and special characters accepted by the MathJax 3 TeX input ' +
  'as JupyterLab 4 configures it for markdown math, generated from mathjax-full by ' +
  'scripts/mathjax_allowlist.mjs (do not edit by hand). "macros": name without the backslash -> ' +
  'the package whose map the parser consults first ("shadows": other packages defining the same ' +
  'name), and its kind: symbol (a character), delimiter (also valid after \\left), ' +
  'math-alphabet (\\mathbb and the like), macro (expands to other TeX; "expansion"), command ' +
  '(a parse method; "method" names it). "environments": \\begin{name} in math. ' +
  '"delimiter_characters": non-command delimiters after \\left/\\right. "special_characters": ' +
  'characters with their own parse method. "text_mode": what \\text{...} accepts (textmacros). ' +
  '"require_only": packages registered but not loaded, reachable only through \\require. ' +
  'The noundefined package renders unknown names instead of failing; it adds no name here.';

const lines = [];
const q = (s) => JSON.stringify(s);
function entryLine(key, value) {
  return `    ${q(key)}: ${JSON.stringify(value)}`;
}
function block(key, table, last) {
  const keys = Object.keys(table);
  if (!keys.length) {
    lines.push(`  ${q(key)}: {}${last ? '' : ','}`);
    return;
  }
  lines.push(`  ${q(key)}: {`);
  keys.forEach((k, i) => lines.push(entryLine(k, table[k]) + (i < keys.length - 1 ? ',' : '')));
  lines.push(`  }${last ? '' : ','}`);
}

const source = sortedObject({
  'mathjax-full': MATHJAX_FULL,
  jupyterlab: JUPYTERLAB,
  mathjax_extension: MATHJAX_EXTENSION,
});

lines.push('{');
lines.push(`  "about": ${q(ABOUT)},`);
block('delimiter_characters', math.delimiterChars, false);
block('environments', math.environments, false);
block('macros', math.macros, false);
lines.push(`  "packages": ${JSON.stringify(PACKAGES)},`);
block('require_only', requireOnly, false);
lines.push(`  "source": ${JSON.stringify(source)},`);
block('special_characters', math.specials, false);
lines.push('  "text_mode": {');
lines.push(`    "about": ${q('Inside \\text{...}, \\mbox{...} and the like the textmacros ' +
  'parser (its configuration is named text-base) reads these control sequences and ' +
  'characters; a math-mode entry of kind macro (and a \\newcommand definition) is expanded ' +
  'and its expansion read in text mode; any other math-mode name there is an error ' +
  '"only supported in math mode". \\(...\\) and $...$ switch back to math.')},`);
const textMacros = Object.keys(text.macros);
lines.push('    "macros": {');
textMacros.forEach((k, i) => lines.push('  ' + entryLine(k, text.macros[k]) +
  (i < textMacros.length - 1 ? ',' : '')));
lines.push('    },');
const textSpecials = Object.keys(text.specials);
lines.push('    "special_characters": {');
textSpecials.forEach((k, i) => lines.push('  ' + entryLine(k, text.specials[k]) +
  (i < textSpecials.length - 1 ? ',' : '')));
lines.push('    }');
lines.push('  }');
lines.push('}');

// Non-ASCII characters only occur inside JSON strings: escape them so that a reader can tell a
// no-break space from a space.
const output = (lines.join('\n') + '\n').replace(/[^\x20-\x7e\n]/g,
  (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
JSON.parse(output); // the hand-laid-out JSON must be valid
process.stdout.write(output);
