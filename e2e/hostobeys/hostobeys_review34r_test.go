package hostobeys

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
	"github.com/claudebox/claudebox/paths"
)

// TestReplayReview34rSocketLinkedIntoProject: no socket is made in the
// project, but the sandbox writes host directories outside it too (its
// tool caches at /run/claudebox/caches, its instance at
// ~/.claude/projects, whose host paths /proc/self/mountinfo names): a
// listener bound there, and a link in the project leading to its host
// path (.pg/.s.PGSQL.5432), and the host's psql pointed at the project's
// socket connected to the sandbox's listener and sent it the password of
// ~/.pgpass. Host-side proof: the host's psql, run during the session,
// gives the sandbox nothing; no socket is made in those directories, and
// one in /dev/shm still is.
func TestReplayReview34rSocketLinkedIntoProject(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "db")
	h.GitRepo(proj)
	h.Write(filepath.Join(proj, ".gitignore"), "/.pg/\n/listen.py\n/got\n/refused\n/started\n/elsewhere-ok\n/instance-refused\n")
	const secret = "pgpass-secret-r34r-0123456789"
	psql, out := psqlDuringSession(t, h, proj, secret, `mkdir -p .pg
python3 -c 'import socket; socket.socket(socket.AF_UNIX).bind("/dev/shm/ok.sock")' && touch elsewhere-ok
python3 -c 'import socket, os
for d in (os.environ["HOME"] + "/.claude/projects", os.environ["HOME"] + "/.claude/file-history"):
    try:
        socket.socket(socket.AF_UNIX).bind(d + "/x.sock")
    except OSError as e:
        open("instance-refused", "a").write(d + ": " + str(e) + "\n")'
caches=$(awk '$5 == "/run/claudebox/caches" {print $4}' /proc/self/mountinfo)
ln -s "$caches/pg.sock" .pg/.s.PGSQL.5432
python3 listen.py /run/claudebox/caches/pg.sock &
while ! test -e done; do sleep 0.1; done`)
	if b, _ := os.ReadFile(filepath.Join(proj, "got")); strings.Contains(string(b), secret) {
		t.Errorf("the host's psql, pointed at the project's socket, a link to the sandbox's listener in its caches, gave it the password of ~/.pgpass: %q\npsql: %s", b, psql)
	}
	if b, _ := os.ReadFile(filepath.Join(proj, "instance-refused")); strings.Count(string(b), "ermission denied") != 2 || !paths.Exists(filepath.Join(proj, "refused")) {
		t.Errorf("the sandbox bound a socket in a host directory it writes outside the project: refused %q, caches refused %v\n%s", b, paths.Exists(filepath.Join(proj, "refused")), out)
	}
	if !paths.Exists(filepath.Join(proj, "elsewhere-ok")) {
		t.Errorf("no socket could be made outside the host's directories, in /dev/shm:\n%s", out)
	}
}
