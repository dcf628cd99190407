#!/usr/bin/env bash
# make validate-examples: the files in examples/ checked offline by their ecosystems' own tools
# (installed by the Makefile into .build/validate), and each tool shown to fail on a broken copy, so
# a pass means something:
#   Kubernetes   kubernetes-validate --strict (the API's own schemas), and SHARDS = completions
#   GitHub       actionlint (with shellcheck on every run: step), and the workflow JSON schema
#   Dockerfile   hadolint; every apt package it installs exists in Debian 12 (the image's base);
#                every COPY source exists; the product it builds is in Package.swift
#   Slurm        shellcheck on the scripts and the sbatch files (and on Tests/cluster)
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
bin=${VALIDATE_BIN:-$repo/.build/validate/bin}
export PATH=$bin:$PATH
for tool in kubernetes-validate check-jsonschema actionlint hadolint shellcheck python; do
  [[ -x $bin/$tool ]] || { echo "validate-examples: $bin/$tool is missing; expected make validate-examples to install it" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
  echo "validate-examples: FAILED: $*" >&2
  exit 1
}
# Runs a tool that must accept the file(s).
pass() {
  local what=$1
  shift
  "$@" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; fail "$what"; }
  echo "validate-examples: ok: $what"
}
# Runs a tool that must reject a broken copy.
reject() {
  local what=$1
  shift
  if "$@" >"$tmp/out" 2>&1; then fail "$what was accepted: the check cannot fail"; fi
}

# Kubernetes: every resource against the API schemas, unknown fields refused.
pass "Kubernetes manifests (kubernetes-validate --strict, Kubernetes $(kubernetes-validate --version 2>&1 | tail -n 1))" \
  kubernetes-validate --strict --quiet examples/kubernetes/*.yaml
sed 's/completionMode: Indexed/completionMod: Indexed/' examples/kubernetes/render-presets.yaml >"$tmp/unknown-field.yaml"
reject "a Job with a misspelt field" kubernetes-validate --strict --quiet "$tmp/unknown-field.yaml"
sed 's/completions: 4/completions: four/' examples/kubernetes/render-presets.yaml >"$tmp/wrong-type.yaml"
reject "a Job whose completions is not a number" kubernetes-validate --strict --quiet "$tmp/wrong-type.yaml"
# --shards must be the Job's completions (the pod's environment does not carry it).
consistent() {
  python - "$1" <<'EOF'
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if not doc or doc.get("kind") != "Job" or doc["spec"].get("completionMode") != "Indexed":
        continue
    spec = doc["spec"]
    env = {e["name"]: e.get("value") for c in spec["template"]["spec"]["containers"] for e in c.get("env", [])}
    args = " ".join(a for c in spec["template"]["spec"]["containers"] for a in c.get("args", []) + c.get("command", []))
    assert '--shards "$SHARDS"' in args, f"the render command does not pass --shards: {args}"
    assert env.get("SHARDS") == str(spec["completions"]), f"SHARDS {env.get('SHARDS')} is not completions {spec['completions']}"
    assert spec.get("parallelism", 1) <= spec["completions"]
EOF
}
pass "Kubernetes Indexed Job: SHARDS is completions" consistent examples/kubernetes/render-presets.yaml
sed 's/completions: 4/completions: 5/' examples/kubernetes/render-presets.yaml >"$tmp/five.yaml"
reject "an Indexed Job with SHARDS 4 of 5 completions" consistent "$tmp/five.yaml"

# GitHub Actions.
pass "GitHub Actions workflow (actionlint $(actionlint -version | head -n 1 | awk '{print $NF}'), shellcheck on run: steps)" \
  actionlint examples/github/render-presets.yml
pass "GitHub Actions workflow (check-jsonschema, the workflow schema)" \
  check-jsonschema --builtin-schema vendor.github-workflows examples/github/render-presets.yml
sed 's/needs: render$/needs: rendr/' examples/github/render-presets.yml >"$tmp/needs.yml"
reject "a workflow needing a job that does not exist" actionlint "$tmp/needs.yml"
sed 's/runs-on: ubuntu-latest/runs_on: ubuntu-latest/' examples/github/render-presets.yml >"$tmp/runs-on.yml"
reject "a workflow with a misspelt key (schema)" check-jsonschema --builtin-schema vendor.github-workflows "$tmp/runs-on.yml"

# Dockerfile. DL3008 (pin apt versions) is off: Debian stable's security updates replace the
# pinned versions, which would break the build; the suite's packages are named by soname instead.
pass "Dockerfile (hadolint $(hadolint --version | awk '{print $NF}'))" hadolint --ignore DL3008 examples/Dockerfile
{ cat examples/Dockerfile; echo 'RUN cd /tmp && apt-get install curl'; } >"$tmp/Dockerfile"
reject "a Dockerfile with RUN cd and an unconfirmed apt-get install" hadolint --ignore DL3008 "$tmp/Dockerfile"
packages() {
  # Every package named after `apt-get install` in RUN lines (continuations joined).
  sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$1" | grep -E '^RUN ' | grep -oE 'apt-get install[^&;]*' |
    sed 's/apt-get install//' | tr ' ' '\n' | grep -vE '^(-.*|)$' | sort -u
}
candidate() { [[ $(apt-cache policy "$1" 2>/dev/null) =~ Candidate:\ [^\(] ]]; }
apt_packages() {
  local p missing=()
  for p in $(packages "$1"); do
    candidate "$p" || missing+=("$p")
  done
  ((${#missing[@]} == 0)) || { echo "not in this machine's Debian archive: ${missing[*]}"; return 1; }
  [[ -n $(packages "$1") ]]
}
if [[ $(. /etc/os-release && echo "$VERSION_CODENAME") == bookworm ]] && grep -q 'bookworm' examples/Dockerfile && candidate libc6; then
  pass "Dockerfile: its $(packages examples/Dockerfile | wc -l) apt packages exist in Debian 12" apt_packages examples/Dockerfile
  sed 's/libavcodec59/libavcodec58/' examples/Dockerfile >"$tmp/Dockerfile.old"
  reject "a Dockerfile installing a package Debian 12 does not have" apt_packages "$tmp/Dockerfile.old"
else
  echo "validate-examples: skipped: the Dockerfile's apt packages (this machine is not Debian 12, the image's base, or has no apt lists)"
fi
copies() {
  local src
  # shellcheck disable=SC2013 # COPY sources are words
  for src in $(grep -E '^COPY ' "$1" | grep -v -- '--from' | awk '{print $2}'); do
    [[ -e $src ]] || { echo "COPY $src: no such file in the build context"; return 1; }
  done
  grep -qE "swift build .*--product loopsmith" "$1" && grep -q 'name: "loopsmith"' Package.swift
}
pass "Dockerfile: its COPY sources exist and it builds the loopsmith product" copies examples/Dockerfile
# A builder would need the base images (swift:6.1-bookworm, debian:bookworm-slim), which this
# machine's network does not reach; say what is here.
builders=""
if command -v docker >/dev/null; then
  if docker info >/dev/null 2>&1; then builders+="docker "; else builders+="docker (a client, no daemon) "; fi
fi
for b in podman buildah; do
  if command -v "$b" >/dev/null; then builders+="$b "; fi
done
builders=${builders% }
echo "validate-examples: not built: builders here: ${builders:-none}; the base images are not reachable offline, so the Dockerfile is linted and its packages and paths checked instead"

# Slurm scripts and the cluster test.
pass "examples/slurm and Tests/cluster (shellcheck $(shellcheck --version | sed -n 's/^version: //p'))" \
  shellcheck -x examples/slurm/*.sh examples/slurm/*.sbatch Tests/cluster/*.sh
cat >"$tmp/bad.sh" <<'EOF'
#!/bin/bash
rm -rf $1/*
EOF
reject "a script with an unquoted variable" shellcheck "$tmp/bad.sh"
echo "validate-examples: passed"
