#!/usr/bin/env bash
# Sets pictable up on this machine and runs it: `./setup.sh demo` (the main job) or
# `./setup.sh test` (the whole test suite). Safe to run again: it reuses what is there.
#
# What it does, in order:
#   1. makes or reuses a virtual environment in .venv (PICTABLE_VENV overrides the place);
#   2. installs pictable and its dependencies into it (with the test tools for `test`);
#   3. installs the system library libzbar0 (for pyzbar) when it is missing, and for `test`
#      Debian's chromium (the scoreboard page is tested in it), with --no-install-recommends,
#      or says plainly how to when it cannot (not root, no apt);
#   4. runs `pictable demo` or the tests (extra arguments go to them).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
job="${1:-demo}"
shift || true
venv="${PICTABLE_VENV:-$here/.venv}"
python="${PYTHON:-python3}"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
fail() { printf 'setup: %s\n' "$*" >&2; exit 1; }

case "$job" in
  demo|test) ;;
  -h|--help|help)
    sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) fail "unknown job '$job': use './setup.sh demo' or './setup.sh test'" ;;
esac

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo "$@"
  else return 1
  fi
}

apt_install() {  # apt_install PKG...: installs Debian packages without recommends
  command -v apt-get >/dev/null || return 1
  as_root true || return 1
  if [[ -z "${_apt_updated:-}" ]]; then
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
    _apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
}

command -v "$python" >/dev/null || fail "$python not found: pictable needs Python 3.11 or newer"
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
  || fail "pictable needs Python 3.11 or newer; $("$python" --version 2>&1) found (set PYTHON=...)"

# 1. The virtual environment.
if [[ ! -x "$venv/bin/python" ]]; then
  say "creating the virtual environment $venv"
  if ! "$python" -m venv "$venv" 2>/dev/null; then
    rm -rf "$venv"
    say "python venv is missing; installing python3-venv"
    apt_install python3-venv || fail "cannot create a virtual environment: install python3-venv (as root: apt-get install --no-install-recommends python3-venv)"
    "$python" -m venv "$venv"
  fi
fi
vpy="$venv/bin/python"

# 2. pictable and its dependencies (skipped when pyproject.toml has not changed).
extras=""
[[ "$job" == test ]] && extras="[test]"
stamp="$venv/.pictable-installed$extras"
if [[ ! -f "$stamp" || pyproject.toml -nt "$stamp" ]]; then
  say "installing pictable$extras and its dependencies"
  "$vpy" -m pip install --quiet --disable-pip-version-check --upgrade pip
  "$vpy" -m pip install --quiet --disable-pip-version-check -e ".$extras"
  touch "$stamp"
fi

# 3. libzbar0, the system library behind pyzbar.
if ! "$vpy" -c 'import pyzbar.pyzbar' 2>/dev/null; then
  say "installing libzbar0 (needed by pyzbar)"
  if ! apt_install libzbar0; then
    msg="pyzbar needs the system library libzbar0, and it could not be installed here (needs root and apt-get). Install it with: sudo apt-get install --no-install-recommends libzbar0"
    [[ "$job" == test ]] && fail "$msg"
    printf 'setup: warning: %s\n' "$msg" >&2
  fi
fi

# The scoreboard page is tested in a real headless browser: Debian's chromium.
if [[ "$job" == test ]] && ! command -v chromium >/dev/null && ! command -v chromium-browser >/dev/null; then
  say "installing chromium (the scoreboard page is tested in headless Chromium)"
  if ! apt_install chromium fonts-dejavu-core; then
    msg="the scoreboard tests need Chromium and it could not be installed here (needs root and apt-get). Install it with: sudo apt-get install --no-install-recommends chromium"
    [[ -n "${CI:-}" ]] && fail "$msg"
    printf 'setup: warning: %s (those tests will be skipped)\n' "$msg" >&2
  fi
fi

# 4. The job.
if [[ "$job" == demo ]]; then
  say "running pictable demo"
  exec "$venv/bin/pictable" demo "$@"
fi
say "running the tests"
jobs_n="${PICTABLE_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}"
set +e
"$vpy" -m pytest -q -n "$jobs_n" "$@"
status=$?
set -e
# pytest exits 5 when it collected no test: that is a failure of the suite, not a pass.
exit "$status"
