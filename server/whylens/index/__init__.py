"""index"""

from whylens.index import light_whoosh

light_whoosh.load()
