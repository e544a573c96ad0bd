"""Bundle KaTeX from its npm package into reports/assets (katex.min.js, katex.min.css), fonts inlined.

    python scripts/bundle_katex.py                 # npm pack katex@VERSION into a temporary folder
    python scripts/bundle_katex.py --tgz katex-0.19.1.tgz

The report is one self-contained file, so the fonts cannot be fetched: each
``@font-face`` keeps only its WOFF2 source, as a ``data:`` URI (every browser that
runs the page reads WOFF2). Both files start with KaTeX's MIT license notice.
"""

from __future__ import annotations

import argparse
import base64
import re
import subprocess
import tarfile
import tempfile
from pathlib import Path

VERSION = "0.19.1"
ASSETS = Path(__file__).resolve().parents[1] / "reports" / "assets"
_SRC = re.compile(
    r"src:url\(fonts/([A-Za-z0-9_-]+)\.woff2\) format\(\"woff2\"\)(?:,url\([^)]*\) format\(\"[a-z]+\"\))*"
)


def npm_pack(version: str, folder: Path) -> Path:
    """``npm pack katex@version`` into ``folder``; returns the tarball."""
    subprocess.run(["npm", "pack", f"katex@{version}", "--silent"], cwd=folder, check=True, capture_output=True)
    return next(folder.glob("katex-*.tgz"))


def notice(license_text: str, version: str) -> str:
    """A CSS/JS comment carrying KaTeX's license (MIT requires the notice with every copy)."""
    body = license_text.strip().replace("*/", "* /")
    return f"/*! KaTeX {version} (https://katex.org), bundled by scripts/bundle_katex.py.\n{body}\n*/\n"


def inline_fonts(css: str, fonts: dict[str, bytes]) -> str:
    """``css`` with every font source replaced by its WOFF2 file as a data: URI."""

    def one(match: re.Match[str]) -> str:
        data = base64.b64encode(fonts[match.group(1)]).decode("ascii")
        return f'src:url(data:font/woff2;base64,{data}) format("woff2")'

    out = _SRC.sub(one, css)
    if "url(fonts/" in out:
        raise SystemExit("katex.min.css: a font source was not inlined (has KaTeX's CSS changed?)")
    return out


def bundle(tgz: Path, version: str) -> None:
    """Write katex.min.js and katex.min.css into :data:`ASSETS` from the npm tarball ``tgz``."""
    with tarfile.open(tgz) as tar:

        def read(name: str) -> bytes:
            member = tar.extractfile(f"package/{name}")
            if member is None:
                raise SystemExit(f"{tgz}: no package/{name}")
            return member.read()

        header = notice(read("LICENSE").decode("utf-8"), version)
        js = read("dist/katex.min.js").decode("utf-8")
        if "</script" in js.lower():
            raise SystemExit("katex.min.js contains </script: it cannot be inlined")
        fonts = {
            Path(m.name).stem: read(m.name[len("package/") :])
            for m in tar.getmembers()
            if m.name.startswith("package/dist/fonts/") and m.name.endswith(".woff2")
        }
        css = inline_fonts(read("dist/katex.min.css").decode("utf-8"), fonts)
    (ASSETS / "katex.min.js").write_text(header + js.strip() + "\n", encoding="utf-8")
    (ASSETS / "katex.min.css").write_text(header + css.strip() + "\n", encoding="utf-8")
    for name in ("katex.min.js", "katex.min.css"):
        print(f"{ASSETS / name}: {(ASSETS / name).stat().st_size / 1024:.0f} KiB")


def main() -> None:
    """Command line: see the module docstring."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tgz", type=Path, help="a katex npm tarball (default: npm pack katex@VERSION)")
    parser.add_argument("--version", default=VERSION)
    args = parser.parse_args()
    if args.tgz is not None:
        bundle(args.tgz, args.version)
        return
    with tempfile.TemporaryDirectory() as folder:
        bundle(npm_pack(args.version, Path(folder)), args.version)


if __name__ == "__main__":
    main()
