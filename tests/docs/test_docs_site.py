"""The documentation: the site builds in strict mode (a broken link or a missing anchor fails
MkDocs' validation), its generated pages are in sync, and the README is short and every link
in it resolves. Fast and offline: no network, no server."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"


def _docs_site() -> Any:
    spec = importlib.util.spec_from_file_location("docs_site", REPO / "scripts" / "docs_site.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_site_builds_strictly_with_every_rule_and_command(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="pip install -e '.[docs]'")
    site = tmp_path / "site"
    run = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict",
                          "--config-file", str(REPO / "mkdocs.yml"), "--site-dir", str(site)],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "WARNING" not in run.stderr, run.stderr
    from mechnb.checker import RULES
    from mechnb.cli import SUBCOMMANDS

    rules = (site / "reference" / "rules.html").read_text("utf-8")
    assert all(f"<td>{rule.code}</td>" in rules for rule in RULES)
    cli = (site / "reference" / "cli.html").read_text("utf-8")
    assert all(f'id="mechnb-{name}"' in cli for name in SUBCOMMANDS)
    assert "--bundle" in cli and "--format" in cli
    assert "Changelog" in (site / "changelog.html").read_text("utf-8")
    # browsable from the file system: plain .html pages, no CDN
    index = (site / "index.html").read_text("utf-8")
    assert 'href="guide/security.html"' in index
    assert "cdnjs" not in index


def _build_tiny_site(tmp_path: Path, link: str) -> None:
    """A two-page site with the repository's strictness and validation settings."""
    yaml = pytest.importorskip("yaml")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    settings = yaml.safe_load((REPO / "mkdocs.yml").read_text("utf-8"))
    docs = tmp_path / "docs"
    docs.mkdir(parents=True)
    (docs / "index.md").write_text(f"# Home\n\n[there]({link})\n", "utf-8")
    (docs / "other.md").write_text("# Other\n\n## A heading\n", "utf-8")
    config = {k: settings[k] for k in ("strict", "validation", "markdown_extensions")}
    config.update(site_name="tiny", docs_dir=str(docs), site_dir=str(tmp_path / "site"))
    (tmp_path / "mkdocs.yml").write_text(yaml.safe_dump(config), "utf-8")
    build(load_config(str(tmp_path / "mkdocs.yml")))


def test_strict_mode_fails_on_a_missing_anchor_or_page(tmp_path: Path) -> None:
    """The validation settings make a broken anchor an error, not an info line."""
    pytest.importorskip("mkdocs", reason="pip install -e '.[docs]'")
    from mkdocs.exceptions import Abort

    _build_tiny_site(tmp_path / "good", "other.md#a-heading")
    with pytest.raises(Abort):
        _build_tiny_site(tmp_path / "anchor", "other.md#no-such-heading")
    with pytest.raises(Abort):
        _build_tiny_site(tmp_path / "page", "missing.md")


def test_generated_pages_are_in_sync() -> None:
    stale = [str(path.relative_to(REPO)) for path, text in _docs_site().generated_pages().items()
             if path.read_text("utf-8") != text]
    assert stale == [], "regenerate: python scripts/docs_site.py"


def test_the_readme_is_short() -> None:
    assert len(README.read_text("utf-8").splitlines()) <= 250


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading (and MkDocs' for plain ASCII headings)."""
    text = re.sub(r"[`*_]|<[^>]+>", "", heading).strip().lower()
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(markdown: str) -> set[str]:
    markdown = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} +(.+?) *#*$", markdown, re.M)}


def _links(markdown: str) -> list[str]:
    markdown = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    markdown = re.sub(r"`[^`\n]*`", "", markdown)
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", markdown)


def test_every_readme_link_resolves() -> None:
    text = README.read_text("utf-8")
    links = _links(text)
    assert len(links) >= 15  # the guide, the reference, the pictures
    broken = []
    for link in links:
        if re.match(r"[a-z]+:", link):  # https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        path = (README.parent / target).resolve() if target else README
        if not path.exists() or REPO not in path.parents:
            broken.append(link)
            continue
        if anchor and (path.suffix != ".md" or anchor not in _anchors(path.read_text("utf-8"))):
            broken.append(link)
    assert broken == []


def test_the_link_checker_sees_broken_links() -> None:
    assert _links("[a](docs/none.md) ![b](x.png) `[c](code.md)`") == ["docs/none.md", "x.png"]
    assert "a-five-minute-tour" in _anchors(README.read_text("utf-8"))
    assert _slug("The `%mech` magics") == "the-mech-magics"


def _python_block(markdown: str, after: str) -> str:
    return markdown.split(after, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def test_the_site_shows_the_readme_quickstart() -> None:
    """The home page repeats the README's quickstart cell (the browser tests run the README's)."""
    readme = _python_block(README.read_text("utf-8"), "## A five-minute tour")
    home = _python_block((REPO / "docs" / "index.md").read_text("utf-8"),
                         "## Quickstart in a notebook")
    assert readme == home
    assert readme.startswith("%load_ext mechnb\n%mech new dynamics")
