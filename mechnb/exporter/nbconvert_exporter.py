"""``jupyter nbconvert --to mechnb paper.ipynb``: the mechnb exporter behind nbconvert's API.

Registered through the ``nbconvert.exporters`` entry point. Figures and the ``.bib`` copy are
returned in ``resources["outputs"]`` under ``<stem>_files/``, which nbconvert's writer saves next
to the ``.tex``. This module imports nbconvert, so it is never on mechnb's own export path.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from nbconvert.exporters import Exporter
from traitlets import Bool, Unicode

from ..notebook import paper_from_dict
from .api import render


class MechnbExporter(Exporter):
    """Annotated notebook → LaTeX paper draft (mechnb roles, theorem environments, figures)."""

    export_from_notebook = "LaTeX paper (mechnb)"
    output_mimetype = "application/x-tex"
    include_code = Bool(False, help="Print code cells and their text outputs.").tag(config=True)
    latex_template = Unicode("", help="mechnb template name or path (default: by language)"
                             ).tag(config=True)

    def _file_extension_default(self) -> str:
        return ".tex"

    def from_notebook_node(  # type: ignore[override]
            self, nb: Any, resources: Any = None, **kw: Any
                           ) -> tuple[str, dict[str, Any]]:
        resources = self._init_resources(resources)  # type: ignore[no-untyped-call]
        meta = resources.get("metadata", {})
        name = meta.get("name") or "notebook"
        where = Path(meta.get("path") or ".")
        paper = paper_from_dict(nb, where / f"{name}.ipynb")
        result = render(paper, template=self.latex_template or None,
                        include_code=self.include_code)
        for f in [*paper.findings, *result.findings]:
            self.log.warning("%s", f.format(paper.display_name))
        outputs = resources.setdefault("outputs", {})
        outputs.update(result.resources)
        resources["mechnb_findings"] = [f.to_json() for f in result.findings]
        return result.latex, resources
