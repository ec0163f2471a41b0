"""The language server: the only package that imports pygls and lsprotocol.

``server.create_server(exclude=())`` builds a ``WhyLensServer`` holding one ``Feature`` object per
feature (``features.feature_classes()``); ``protocol.py`` declares WhyLens's own methods and
payloads.
"""
