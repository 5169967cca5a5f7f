#!/usr/bin/env bash
# Regenerates tests/src/test/resources/contracts/<version>/ from a released Punctual: builds the tag's
# punctual.jar in a temporary worktree and runs MakeFixtures.java against it. Usage: make-fixtures.sh v0.1.0
set -euo pipefail
tag=${1:?usage: make-fixtures.sh <tag>}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$work/src" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
git -C "$root" worktree add --detach "$work/src" "$tag" >/dev/null
(cd "$work/src" && mvn -B -q ${MAVEN_ARGS:-} -pl local -am package -DskipTests)
out="$root/tests/src/test/resources/contracts/${tag#v}"
rm -rf "$out"
java -cp "$work/src/local/target/punctual.jar" "$root/tools/contracts/MakeFixtures.java" "$out"
