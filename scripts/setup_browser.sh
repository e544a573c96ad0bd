#!/usr/bin/env bash
# Install what the browser tests (pytest -m browser) need: Debian's chromium and chromedriver,
# a CJK font for the report's Chinese text and plots, and selenium in the project's virtualenv.
# Safe to run again; needs root (apt-get). CI calls it before the tests.
set -euo pipefail
PYTHON=${PYTHON:-.venv/bin/python}
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! fc-list :lang=zh | grep -q .; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver fonts-noto-cjk >/dev/null
fi
if [ -x "$PYTHON" ]; then
  "$PYTHON" -m pip install -q -c constraints.txt selenium
fi
chromium --version
chromedriver --version
