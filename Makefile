# mechnb — two commands on a fresh Debian machine (as root): `make demo`, `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.mechnb-installed
# lmodern: the pdfLaTeX fonts of the article template; latex-cjk-* + Arphic: Chinese under pdfLaTeX
# (ctex through CJKutf8, as on arXiv); poppler-utils: pdftotext, the bundle check's "??" test;
# texlive-luatex: luaotfload, which fontspec needs under --engine lualatex; fonts-noto-cjk: Korean and
# Japanese text (Hangul, kana), which the Chinese fonts lack; texlive-bibtex-extra: gbt7714, the
# GB/T 7714 numerical references of Chinese papers; texlive-science, -publishers, -plain-generic
# (54 MB) and tex-gyre (6 MB): algorithm/algorithmic/algpseudocode, siunitx, llncs, ulem, soul,
# tgpagella/tgtermes, the packages ML and theory papers load most that TeX Live's base lacks
# (measured for issue 35); texlive-lang-cyrillic (21 MB download, 41 MB installed): T2A and the LH
# fonts, so pdfLaTeX sets Cyrillic as arXiv does (as bitmaps here: cm-super's outline fonts, 53 MB,
# are left out, and an English paper with Cyrillic builds here with XeLaTeX; issue 34).
TEX_PACKAGES := texlive-xetex texlive-luatex texlive-latex-recommended texlive-latex-extra \
	texlive-lang-chinese texlive-fonts-recommended latexmk lmodern latex-cjk-chinese fonts-noto-cjk \
	latex-cjk-chinese-arphic-gbsn00lp latex-cjk-chinese-arphic-gkai00mp poppler-utils \
	texlive-bibtex-extra texlive-science texlive-publishers texlive-plain-generic \
	fonts-noto-core fonts-noto-mono fonts-symbola tex-gyre texlive-lang-cyrillic
# make test runs the suite on this many pytest-xdist workers (tests/conftest.py keeps the browser
# tests, the corpus tests and tests sharing a fixture each in one worker); 1 runs it serially.
TEST_WORKERS ?= 3
APT_GET := DEBIAN_FRONTEND=noninteractive apt-get
EXAMPLE := notebooks/example_paper.ipynb
EXAMPLE_ZH := notebooks/example_paper_zh.ipynb
# The example papers, one per paper type: dynamics (en, zh), failure (en), expressivity (zh).
EXAMPLES := $(EXAMPLE) $(EXAMPLE_ZH) notebooks/failure_paper.ipynb \
	notebooks/expressivity_paper_zh.ipynb
BUILDERS := notebooks/build_example_paper.py notebooks/build_failure_paper.py \
	notebooks/build_expressivity_paper.py

.PHONY: demo test lab docs bench lint install bytecode tex chromium pandoc clean

## Install the package (with its prebuilt JupyterLab extension) and the test tools into .venv.
install: $(STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# The wheel build hook (hatch-jupyter-builder) runs `npm install` (from the committed lock file) and
# builds labextension/ into mechnb/labextension/, shipped as share/jupyter/labextensions/mechnb.
$(STAMP): pyproject.toml $(wildcard labextension/package.json labextension/package-lock.json \
		labextension/src/* labextension/style/* labextension/schema/* jupyter-config/*/*) | $(BIN)/python
	@command -v npm >/dev/null || { echo "npm (Node.js >= 20) is needed to build the JupyterLab extension"; exit 1; }
	$(BIN)/pip install --quiet -e ".[test]"
	touch $@

## The package's bytecode, written now: an editable install compiles nothing, and where
## PYTHONDONTWRITEBYTECODE is set (some CI and container set-ups) every `mechnb` process would
## otherwise compile the package from source again (about 0.2 s each; the tests start hundreds).
bytecode: install
	@$(BIN)/python -m compileall -q -j 0 mechnb tests >/dev/null

## TeX Live from Debian's packages, only when something of it is missing; bubblewrap, the
## sandbox latexmk runs in (mechnb compiles without it where it is missing or cannot start).
tex:
	@if ! command -v xelatex >/dev/null || ! command -v latexmk >/dev/null || ! command -v pdftotext >/dev/null \
		|| ! command -v lualatex >/dev/null \
		|| ! kpsewhich ctexart.cls lmodern.sty CJKutf8.sty c70gbsn.fd c70gkai.fd luaotfload.sty fvextra.sty gbt7714.sty t2aenc.def \
			algorithm.sty siunitx.sty llncs.cls ulem.sty tgpagella.sty >/dev/null \
		|| ! fc-list "Noto Serif CJK KR" family | grep -q Noto \
		|| ! fc-list "Noto Serif Hebrew" family | grep -q Noto || ! fc-list Symbola family | grep -q Symbola; then \
		echo "Installing TeX Live from Debian packages..."; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq --no-install-recommends $(TEX_PACKAGES); \
	fi
	@if ! command -v bwrap >/dev/null; then \
		echo "Installing bubblewrap (the TeX sandbox) from Debian packages..."; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq --no-install-recommends bubblewrap; \
	fi

## Debian's Chromium (for the real-browser tests), only when missing.
chromium:
	@if ! test -x /usr/bin/chromium; then \
		echo "Installing Chromium from Debian packages..."; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq --no-install-recommends chromium; \
	fi

## The main job: build every example paper afresh in build/examples/ (its builder writes the
## notebook and a real kernel executes it: the dynamics paper trains its model, the failure paper
## simulates bfloat16 bit by bit, the expressivity paper checks its construction exhaustively),
## export each to build/<name>/ as LaTeX and PDF and print its checks; the English dynamics
## example also gets an arXiv bundle (checked with pdfLaTeX in an empty directory). The committed
## notebooks in notebooks/ are left as they are.
demo: tex install bytecode
	@set -eo pipefail; for builder in $(BUILDERS); do \
		echo "== $$builder (executing the notebook)"; \
		$(BIN)/python $$builder --out-dir build/examples 2>&1 | grep -v "without encryption"; \
	done; \
	for nb in $(EXAMPLES); do \
		name=$$(basename $$nb .ipynb); built=build/examples/$$name.ipynb; \
		bundle=; if [ "$$nb" = "$(EXAMPLE)" ]; then bundle="--bundle arxiv"; fi; \
		echo "== $$built"; \
		$(BIN)/mechnb export $$built -o build/$$name --pdf $$bundle; \
		$(BIN)/mechnb check $$built; \
	done

## The whole test suite: unit, TeX compile, real kernel, real browser.
test: tex chromium install bytecode
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadgroup --durations=15

## JupyterLab on notebooks/ with the extension.
## Real-time collaboration (jupyter-collaboration, installed for the tests) stays off unless
## asked for with `make lab RTC=1`: an extra config dir turns its server and lab extensions off.
## LAB_DIR: the folder JupyterLab opens; LAB_ARGS: more `jupyter lab` options (the browser test
## of this target passes a port and a token).
LAB_CONFIG := build/lab-config
LAB_DIR ?= notebooks
lab: install
	@if [ "$(RTC)" != "1" ]; then \
		mkdir -p $(LAB_CONFIG)/labconfig; \
		echo '{"ServerApp": {"jpserver_extensions": {"jupyter_server_ydoc": false}}}' \
			> $(LAB_CONFIG)/jupyter_server_config.json; \
		echo '{"disabledExtensions": {"@jupyter/collaboration-extension": true, "@jupyter/docprovider-extension": true}}' \
			> $(LAB_CONFIG)/labconfig/page_config.json; \
		echo "JupyterLab without real-time collaboration (make lab RTC=1 turns it on)"; \
		JUPYTER_CONFIG_PATH=$(CURDIR)/$(LAB_CONFIG) $(BIN)/jupyter lab --notebook-dir=$(LAB_DIR) $(LAB_ARGS); \
	else \
		$(BIN)/jupyter lab --notebook-dir=$(LAB_DIR) $(LAB_ARGS); \
	fi

## The documentation site (MkDocs, strict: a broken link or anchor fails) into build/site/;
## open build/site/index.html, no server needed. Rewrites the generated rule tables first.
docs: install
	@$(BIN)/python -c "import mkdocs" 2>/dev/null || $(BIN)/pip install --quiet -e ".[docs]"
	$(BIN)/python scripts/docs_site.py
	$(BIN)/mkdocs build --strict --quiet
	@echo "Documentation: build/site/index.html"

## Debian's pandoc: `jupyter nbconvert --to latex` (the benchmark's baseline) needs it.
pandoc:
	@if ! command -v pandoc >/dev/null; then \
		echo "Installing pandoc from Debian packages..."; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq --no-install-recommends pandoc; \
	fi

## Benchmarks (ratios against nbconvert and a json.load floor).
bench: pandoc install
	$(BIN)/python benchmarks/run.py

lint: install
	$(BIN)/ruff check mechnb tests benchmarks
	$(BIN)/mypy

clean:
	rm -rf $(VENV) build dist labextension/node_modules labextension/lib mechnb/labextension
