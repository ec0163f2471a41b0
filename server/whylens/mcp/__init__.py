"""The MCP server for coding agents (``whylens mcp``): the only package that imports the MCP SDK.

``server.serve(repo, index_dir)`` runs it over stdio. Tools answer from the same core functions
and JSON builders as the CLI (``tools``), within a token budget (``budget``), with paths confined
to the repository (``paths``); the index is opened read-only and built by a child process
(``keeper``), and reviews run ``whylens pr-comments`` as a child (``review``), so GitPython never
loads into this long-running process. Only the ``whylens mcp`` command imports this package.
"""
