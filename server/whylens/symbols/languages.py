"""Which grammar parses a path: a table of file extensions and a few well-known file names.

Names are ``tree_sitter_language_pack`` names. ``.h`` headers go to the C++ grammar, which
parses C declarations too, because C++ projects use ``.h`` far more often than C projects use
anything else. An unknown extension is a value (``None``), never an error.
"""

from __future__ import annotations

import posixpath

LANGUAGES = (
    "python", "javascript", "typescript", "tsx", "go", "java", "rust",
    "c", "cpp", "csharp", "ruby", "php", "kotlin",
)

EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".java": "java",
    ".rs": "rust",
    ".c": "c",
    ".h": "cpp", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hpp": "cpp",
    ".hh": "cpp", ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".tpp": "cpp", ".inl": "cpp",
    ".cs": "csharp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
    ".php": "php", ".phtml": "php",
    ".kt": "kotlin", ".kts": "kotlin",
}

FILE_NAMES: dict[str, str] = {
    "Rakefile": "ruby", "Gemfile": "ruby", "Guardfile": "ruby", "Vagrantfile": "ruby",
}


def language_for_path(path: str) -> str | None:
    """The grammar name for ``path`` (POSIX or Windows separators), or None when unsupported."""
    if not path:
        return None
    name = posixpath.basename(path.replace("\\", "/"))
    if name in FILE_NAMES:
        return FILE_NAMES[name]
    dot = name.rfind(".")
    if dot <= 0:  # no extension, or a dot file such as ".gitignore"
        return None
    return EXTENSIONS.get(name[dot:].lower())
