#!/usr/bin/env bash
# Runs the test suite (the command after MINUTES) with a deadline, as `make test` does: a suite
# still running after MINUTES minutes is stopped, and what was hanging is printed instead of a CI
# job that only times out. On the deadline it prints the tests that started and never finished,
# sends SIGTRAP to every process of the run's session (Swift's backtracer, which `make test`
# enables, prints every thread of the test process and of any loopsmith child it was waiting
# for), then SIGKILL, and exits 1. Otherwise it exits with the suite's own status.
#
# A suite that fails with a crash in its log ends with a summary, where a CI log that keeps only
# its last lines still shows it: the tests that had started and not finished (one of them
# crashed), the lines printed just before (a Swift runtime error, glibc's "free(): ..."), the top
# of the crashed thread's stack as Swift's backtracer printed it, and for an abort, whose stack the
# backtracer cannot walk past glibc's pthread_kill, the stack the test process printed itself
# (Tests/_TestCrashTrace), its frames named (docs/TESTING.md, When the suite crashes).
#
#   Tests/run-suite.sh MINUTES swift test --skip-build
#
# RUN_SUITE_SECONDS, when set, is the deadline in seconds instead (for its own test,
# RunSuiteTests, which cannot wait minutes).
set -uo pipefail
minutes=${1:?usage: Tests/run-suite.sh MINUTES COMMAND...}
shift
[[ $minutes =~ ^[1-9][0-9]*$ ]] || { echo "run-suite: MINUTES: '$minutes' is not a whole number of minutes" >&2; exit 2; }

log=$(mktemp "${TMPDIR:-/tmp}/loopsmith-suite.XXXXXX")
trap 'rm -f "$log"' EXIT
# Its own session, whose id is the pid: the whole run (swift test, the test process it puts in a
# process group of its own, and their children) is stopped by that session id, never by a name.
# At SCHED_OTHER whatever policy the caller runs on: under SCHED_FIFO a thread that spins (a
# browser's main thread, a waiting test) keeps its core from every other thread of equal priority,
# the watchdogs that would stop it among them. Lowering a policy needs no privilege.
sched=()
if command -v chrt >/dev/null; then sched=(chrt --other 0); fi
setsid "${sched[@]}" "$@" >"$log" 2>&1 </dev/null &
pid=$!
tail -n +1 -f --pid="$pid" "$log" &
tailer=$!
# Sends signal $1 to every process of the run's session (read from /proc: procps's pkill is not
# on every Debian image).
signal_session() {
  local f line rest pid_
  for f in /proc/[0-9]*/stat; do
    read -r line <"$f" 2>/dev/null || continue
    rest=${line##*) }  # after the command name, which may hold spaces and parentheses
    read -r _ _ _ session _ <<<"$rest"
    pid_=${f#/proc/}
    [[ $session == "$pid" ]] && kill "-$1" "${pid_%/stat}" 2>/dev/null
  done
  return 0
}
stop() {
  signal_session KILL
  wait "$tailer" 2>/dev/null
}
trap 'stop; rm -f "$log"; exit 130' INT TERM HUP

limit=$((minutes * 60)) after="$minutes min"
if [[ -n ${RUN_SUITE_SECONDS:-} ]]; then
  [[ $RUN_SUITE_SECONDS =~ ^[1-9][0-9]*$ ]] || { echo "run-suite: RUN_SUITE_SECONDS: '$RUN_SUITE_SECONDS' is not a whole number of seconds" >&2; exit 2; }
  limit=$RUN_SUITE_SECONDS after="$RUN_SUITE_SECONDS s"
fi
# The tests the log shows started and not finished, a line each, indented.
unfinished_tests() {
  local started finished
  started=$(sed -nE 's/^◇ Test (.*) started\.$/\1/p' "$log" | grep -vE '^(run|case passing .*)$' | sort -u)
  # "✔ Test f(x:) with 3 test cases passed after ...": the name is what comes before " with".
  finished=$(sed -nE 's/^[✔✘] Test (.*) (passed|failed) after .*$/\1/p' "$log" | sed -E 's/ with [0-9]+ test cases?$//' | sort -u)
  comm -23 <(printf '%s\n' "$started") <(printf '%s\n' "$finished") | sed '/^$/d; s/^/  /'
}

# After a suite that failed: the summary of the last crash its log shows (Swift's backtracer's
# "*** Program crashed: ..."), if any.
summarize_crash() {
  local at
  at=$(grep -n '^\*\*\* Program crashed: ' "$log" | tail -n 1 | cut -d: -f1)
  [[ -n $at ]] || return 0
  echo "run-suite: the suite crashed ($(sed -n "${at}p" "$log")); these tests had started and not finished:"
  unfinished_tests
  # What it printed before the backtracer's first line ("*** Signal 6: Backtracing from ...").
  local signal_at
  signal_at=$(head -n "$at" "$log" | grep -n '^\*\*\* Signal [0-9]*: Backtracing' | tail -n 1 | cut -d: -f1)
  local before=""
  if [[ -n $signal_at ]] && ((signal_at > 1)); then
    before=$(head -n $((signal_at - 1)) "$log" | sed '/^\*\*\* test-crash-trace: SIGABRT/,/^\*\*\* test-crash-trace: end/d' |
      grep -vE '^$|^[◇✔✘↳] ' | tail -n 6)
  fi
  if [[ -n $before ]]; then
    echo "run-suite: the lines before the crash:"
    printf '%s\n' "$before" | sed 's/^/  /'
  fi
  echo "run-suite: the top of the crashed thread's stack:"
  tail -n +"$at" "$log" | awk '/^Thread .* crashed:$/ { on = 1; print; next }
    on && /[^ ]/ { print; n++ } on && n && !/[^ ]/ { exit }' | head -n 13 | sed 's/^/  /'
  # An abort's stack as the test process printed it itself (Tests/_TestCrashTrace), by name.
  local trace
  trace=$(head -n "$at" "$log" | awk '/^\*\*\* test-crash-trace: SIGABRT/ { on = 1; n = 0; delete f; next }
    /^\*\*\* test-crash-trace: end/ { on = 0; next } on { f[n++] = $0 }
    END { for (i = 0; i < n; i++) print f[i] }')
  if [[ -n $trace ]]; then
    echo "run-suite: the aborting thread's stack, from glibc's backtrace:"
    printf '%s\n' "$trace" | symbolize | head -n 20 | sed 's/^/  /'
  fi
}

# Names for test-crash-trace's frames: a "file(+0xoffset)[0xaddress]" line of a file addr2line
# reads becomes "function at source:line (file)", Swift's names demangled where swift-demangle is
# found; every other line stays as it is.
symbolize() {
  local line file offset name place frame='^([^ (][^(]*)[(][+](0x[0-9a-f]+)[)] ?[[]0x[0-9a-f]+[]]$'
  while IFS= read -r line; do
    if [[ $line =~ $frame ]] && command -v addr2line >/dev/null; then
      file=${BASH_REMATCH[1]} offset=${BASH_REMATCH[2]} name="" place=""
      { read -r name; read -r place; } < <(addr2line -C -f -e "$file" "$offset" 2>/dev/null)
      [[ -n $name && $name != "??" ]] && line="$name at $place (${file##*/})"
    fi
    printf '%s\n' "$line"
  done | if command -v swift-demangle >/dev/null; then swift-demangle --simplified; else cat; fi
}

deadline=$((SECONDS + limit))
while kill -0 "$pid" 2>/dev/null; do
  if ((SECONDS >= deadline)); then
    echo "run-suite: the suite was still running after $after; these tests started and never finished:"
    unfinished_tests
    echo "run-suite: sending SIGTRAP to session $pid for the backtraces of its threads"
    signal_session TRAP
    for _ in $(seq 60); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    stop
    echo "run-suite: stopped the suite after $after" >&2
    exit 1
  fi
  sleep 2
done
wait "$pid"
status=$?
wait "$tailer" 2>/dev/null
((status == 0)) || summarize_crash
exit "$status"
