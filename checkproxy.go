package main

import (
	"os/exec"
	"strings"
)

// proxyProbe, run in the trial sandbox, asks the session's proxy for HEAD
// /api/hello, which the proxy answers itself: through the relay on the
// filtered network, at its loopback address on the host's. It prints the
// answer's status line, "none" without a proxy, or "unreachable"; it
// always succeeds, so the trial goes on to claude.
const proxyProbe = `u=${ANTHROPIC_BASE_URL:-$http_proxy}
test -n "$u" || { echo none; exit 0; }
hp=${u#http://}; hp=${hp%%/*}
# command: a failed exec's redirection does not end the shell.
if command exec 3<>"/dev/tcp/${hp%:*}/${hp##*:}"; then
	printf 'HEAD /api/hello HTTP/1.0\r\nHost: %s\r\n\r\n' "$hp" >&3
	IFS= read -r -t 10 line <&3
	echo "${line:-no answer}"
else
	echo unreachable
fi 2>/dev/null; exit 0`

// proxyCommand is the trial's command that runs proxyProbe, or nil when
// there is no bash to run it.
func proxyCommand() []string {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil
	}
	return []string{bash, "-c", proxyProbe}
}

// proxyResult is what proxyProbe printed, for the trial's line.
func proxyResult(out string, filtered bool) checkResult {
	out = strings.TrimSpace(out)
	way := "at its loopback address (--network=host)"
	if filtered {
		way = "through the relay (the filtered network)"
	}
	switch {
	case out == "none":
		return checkResult{"proxy", "ok", "no proxy: no network (--network=none), or a cloud provider's credentials", ""}
	case strings.HasPrefix(out, "HTTP/") && strings.Contains(out, " 200"):
		return checkResult{"proxy", "ok", "reached the session's proxy " + way, ""}
	}
	return checkResult{"proxy", "fail", "did not reach the session's proxy " + way + ": " + out, "claudebox --shell, then curl -sSI $ANTHROPIC_BASE_URL/api/hello shows why"}
}
