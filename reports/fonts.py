"""A CJK font for the plots: an installed system font, else one that a PyPI package carries.

A fresh machine without Debian's ``fonts-noto-cjk`` still draws Chinese labels with the ``plots``
extra, which installs ``pylopdf-fonts-zh-cn``: Noto Sans SC, the simplified-Chinese cut of Google's and
Adobe's maintained Noto Sans CJK (notofonts/noto-cjk), under the SIL Open Font License 1.1, whose text
the package carries (8 MB; its Noto Serif SC is not used). Its file is registered with matplotlib at
plot time, nothing is copied or downloaded. Other packages that carry a CJK font are used when that one
is absent (:data:`FONT_PACKAGES`, in order): ``noto-cjk-sans-otc`` (Noto Sans CJK, whose first face is
the Japanese one) and ``paperang-p2-fonts-cjk`` (WenQuanYi Micro Hei), the font of earlier versions.
"""

from __future__ import annotations

import functools
import importlib.util
import re
from pathlib import Path

CJK_FAMILIES = (
    "Noto Sans CJK SC",
    "Noto Sans CJK JP",
    "Noto Serif CJK SC",
    "WenQuanYi Micro Hei",
    "WenQuanYi Zen Hei",
    "Source Han Sans SC",
    "SimHei",
    "Microsoft YaHei",
    "PingFang SC",
    "AR PL UMing CN",
)
"""Families that cover simplified Chinese, in order of preference."""
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts")
FONT_PACKAGES = ("pylopdf_fonts_zh_cn", "noto_cjk_sans_otc", "paperang_p2_fonts_cjk")
"""Importable packages whose folder holds a CJK font file (found without importing them)."""
_FONT_FILE = (".ttc", ".ttf", ".otf")


def packaged_font_files() -> list[Path]:
    """CJK font files inside the installed :data:`FONT_PACKAGES`, in that order."""
    files: list[Path] = []
    for name in FONT_PACKAGES:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        for folder in spec.submodule_search_locations:
            files += sorted(
                p for p in Path(folder).rglob("*") if p.suffix.lower() in _FONT_FILE and "Serif" not in p.name
            )
    return files


def _register(paths: list[Path]) -> list[str]:
    """Add font files to matplotlib's list; returns the families they bring."""
    from matplotlib import font_manager

    families: list[str] = []
    for path in paths:
        try:
            font_manager.fontManager.addfont(str(path))
            families.append(font_manager.FontProperties(fname=str(path)).get_name())
        except (OSError, RuntimeError, ValueError):
            continue
    return families


@functools.cache
def packaged_cjk_font() -> str | None:
    """The family of the first CJK font a PyPI package carries, registered with matplotlib, or ``None``."""
    return next(iter(_register(packaged_font_files())), None)


@functools.cache
def cjk_font() -> str | None:
    """The family name of a CJK font matplotlib can use: a system one, else a packaged one, else ``None``."""
    from matplotlib import font_manager

    names = {f.name for f in font_manager.fontManager.ttflist}
    for family in CJK_FAMILIES:
        if family in names:
            return family
    # Fonts installed after matplotlib built its cache are not in it yet.
    for folder in FONT_DIRS:
        paths = sorted(Path(folder).rglob("*")) if Path(folder).is_dir() else []
        _register(
            [p for p in paths if p.suffix.lower() in _FONT_FILE and re.search(r"cjk|wqy|wenquan|hei", p.name, re.I)]
        )
    names = {f.name for f in font_manager.fontManager.ttflist}
    found = next((family for family in CJK_FAMILIES if family in names), None)
    return found or packaged_cjk_font()
