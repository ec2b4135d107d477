"""Reading what a notebook sends to TeX, below both the checker and the exporter.

- ``scan`` — the delimiter scanner (markdown → prose / math / code spans, unbalanced TeX) and the
  deny-list of commands that read, write or run;
- ``markdown`` — the shared markdown-it parser (what the export renders, token by token);
- ``gate`` — the trust gate: allowed by allow-list, needs review, refused (DESIGN §2a);
- ``trust`` — approvals of needs-review content, recorded per user by content hash.

Nothing here imports ``mechnb.checker`` or ``mechnb.exporter``.
"""
