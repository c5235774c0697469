#!/usr/bin/env bash
# The newcomer test: what a person does first, in a folder that is not the source tree.
#
# It runs the README's first command (its first ```sh block) as written, in a scratch folder
# holding a copy of examples/, with one change: `pip install .` installs this checkout. So it
# makes a fresh virtual environment with the core install only (no extras), indexes the copy
# and asks it a question, and `kb doctor` checks that copy. Then it checks the command line a
# newcomer tries next, the core install's refusals of `kb serve` and `kb ui`, and `kb doctor`
# on the example fleet with a hook.
#
# pip reaches the package index for the core's few dependencies (attrs, cattrs, returns,
# cyclopts and theirs) and for setuptools to build the wheel; its cache (~/.cache/pip, filled
# by CI's own install a minute earlier) makes that a re-use, about 30 s in all.
#
# Usage: bash tests/newcomer/newcomer.sh   (exit 0 when every binding check passed)
set -euo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Checks that need work from another branch (per-verb help, `kb help`, kb/__main__.py). A
# check named here still runs and prints its result, but its failure does not fail the
# script. After that branch is merged, delete its names here to make them binding
# (KB_NEWCOMER_PENDING= bash tests/newcomer/newcomer.sh tries that without editing).
PENDING="${KB_NEWCOMER_PENDING-}"

failed=0

pending() { [[ " $PENDING " == *" $1 "* ]]; }

# check NAME CODE REGEX COMMAND...: the command (stdin empty) exits CODE and some line of its
# stdout+stderr matches the extended REGEX.
check() {
    local name=$1 want=$2 pattern=$3
    shift 3
    local out code=0
    out=$("$@" </dev/null 2>&1) || code=$?
    if [[ $code == "$want" ]] && grep -Eq -- "$pattern" <<<"$out"; then
        echo "ok      $name"
    elif pending "$name"; then
        echo "pending $name: exit $code (wants $want and /$pattern/); binding once PENDING drops it"
    else
        echo "FAIL    $name: exit $code, wanted $want and a line matching /$pattern/; it printed:"
        sed 's/^/        /' <<<"$out" | head -40
        failed=1
    fi
}

# -- the README's first command -------------------------------------------------------------
first=$(awk '/^```sh$/ { inside = 1; next } inside && /^```$/ { exit } inside' "$repo/README.md")
install='pip install . '
if [[ $first != *"$install"* ]]; then
    echo "FAIL    readme: its first command no longer installs with \`pip install .\`:" >&2
    echo "        $first" >&2
    exit 1
fi
# pip builds a local project inside it (build/, *.egg-info): it builds a copy, so the source
# tree stays as it was.
mkdir "$work/src"
tar -C "$repo" --exclude=./.git --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
    --exclude=.kb --exclude=__pycache__ --exclude=.hypothesis -cf - . | tar -C "$work/src" -xf -
command=${first/"$install"/"pip install $(printf '%q' "$work/src") "}
mkdir "$work/newcomer"
cp -r "$repo/examples" "$work/newcomer/examples"
rm -rf "$work"/newcomer/examples/fleet/fleet/*/.kb
cd "$work/newcomer"
echo "== the README's first command, in $work/newcomer"
echo "   $command"
check readme 0 '^ +[0-9.]+ +ada +knowledge/backups\.md ' env PIP_QUIET=1 bash -c "$command"
check readme-verdict 0 '^verdict: +hit' .venv/bin/kb route "how often should I run a backup restore test" ../harbor
# The README's copy is a fleet of its own: its model (fleet.txt's `answerer =`) came with it.
check doctor-harbor 0 '^nothing to fix: ' .venv/bin/kb doctor ../harbor

kb="$work/newcomer/.venv/bin/kb"
py="$work/newcomer/.venv/bin/python"
echo "== the core install"
check core-has-no-sdk 1 "No module named 'mcp'" "$py" -c "import mcp"
check core-imports 0 '^ok$' "$py" -c "from kb import Memory; print('ok')"
check version 0 '^kb [0-9]+\.[0-9]+\.[0-9]+ \(' "$kb" --version
check route-help 0 'kb route <question>' "$kb" route --help
check help-route 0 'kb route <question>' "$kb" help route
check python-m-kb 0 '^kb [0-9]+\.[0-9]+\.[0-9]+ \(' "$py" -m kb --version
check serve-needs-extra 2 "^kb serve needs the MCP extra: pip install 'kb-fleet\[mcp\]'$" "$kb" serve examples/fleet
check ui-needs-extra 2 "^kb ui needs the UI extra: pip install 'kb-fleet\[ui\]'$" "$kb" ui examples/fleet

echo "== kb doctor on the example fleet"
# The README's command indexed its own copy (../harbor); doctor looks at examples/fleet, as
# the hook below does, so that copy is indexed first, as quickstart.md tells a newcomer to.
"$kb" index examples/fleet >/dev/null
# A hook as docs/hooks.md writes it, with this venv's kb by its absolute path.
cat >settings.json <<EOF
{"hooks": {"UserPromptSubmit": [{"hooks": [
  {"type": "command", "command": "$kb boot \"\$CLAUDE_PROJECT_DIR/examples/fleet\"", "timeout": 30}
]}]}}
EOF
check doctor-kb-path 0 "^ok   kb: $kb \(paste this path" "$kb" doctor examples/fleet --settings settings.json
check doctor-hook 0 '^ok   hook UserPromptSubmit \(settings\.json\): kb boot ran and answered$' \
    "$kb" doctor examples/fleet --settings settings.json
check doctor-extra 0 "^skip extra mcp: not installed; kb serve needs the MCP extra: pip install 'kb-fleet\[mcp\]'$" \
    "$kb" doctor examples/fleet --settings settings.json
check doctor-clean 0 '^nothing to fix: ' "$kb" doctor examples/fleet --settings settings.json
check doctor-no-fleet 1 '^FIX  fleet \.: holds no agent' "$kb" doctor . --settings settings.json

if [[ $failed != 0 ]]; then
    echo "the newcomer test failed" >&2
    exit 1
fi
echo "the newcomer test passed"
