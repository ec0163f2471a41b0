"""The language server: the only package that imports pygls and lsprotocol.

``server.create_server(exclude=())`` builds a ``WhyLensServer`` with the feature modules listed in
``features/__init__.py``; ``protocol.py`` declares WhyLens's own methods and payloads.
"""
