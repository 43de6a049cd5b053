package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview41InTokenBeforeComment: a token drawn at random under
// a name that says nothing was found only where its value ended the line
// or met a quote, a comma or a brace, so the same token with a comment
// after it (CF_GLOBAL=… # from the dashboard, owm: … # weather), a space
// left at the line's end or a shell's ; after it crossed: a ~/bin
// program's, a skill's settings and a Stop hook's script. The attack,
// from inside: read them. Proof: none is readable inside; a script that
// assigns git's empty tree before a comment still runs.
func TestReplayReview41InTokenBeforeComment(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "cf-purge"), "#!/bin/sh\nZONE=example.com\nCF_EMAIL=ops@example.com\nCF_GLOBAL=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7  # the global key, from the dashboard\ncurl -s -X POST -H \"X-Auth-Email: $CF_EMAIL\" -H \"X-Auth-Key: $CF_GLOBAL\" \"https://api.cloudflare.com/client/v4/zones/$ZONE/purge_cache\"\n")
	h.Write(filepath.Join(bin, "greet"), "#!/bin/sh\nEMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904 # git's empty tree\necho R41-GREET\n")
	for _, name := range []string{"cf-purge", "greet"} {
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	skill := filepath.Join(h.Home, ".claude", "skills", "ops")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ops\ndescription: the site's services\n---\nRead the settings beside this file.\n")
	h.Write(filepath.Join(skill, "weather.yaml"), "units: metric\nowm: 3f2a9c1b7e4d5a6f8b0c2d4e6f8a1b3c   # openweathermap\n")
	h.Write(filepath.Join(skill, "market.ini"), "[quotes]\nalphavantage=Q7XK2M9PLR4TNV8B \n")
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/.claude/hooks/done.sh"}]}]}}`)
	h.Write(filepath.Join(claude, "hooks", "done.sh"), "#!/bin/sh\nAPP=Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH; curl -s -d \"app=$APP\" -d message=done https://notify.example.com/send\n")
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/bin/cf-purge ~/.claude/skills/ops/* ~/.claude/hooks/done.sh; greet; true")
	t.Log(out)
	for _, secret := range []string{
		"1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7", "3f2a9c1b7e4d5a6f8b0c2d4e6f8a1b3c", "Q7XK2M9PLR4TNV8B",
		"Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH",
	} {
		if strings.Contains(out, secret) {
			t.Errorf("a token drawn at random, a comment, a space or a ; after it, is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R41-GREET") {
		t.Errorf("inside, want the script that assigns git's empty tree before a comment to run")
	}
}

// TestReplayReview41InTokenGivenInCommand: a token drawn at random given
// to a name that says nothing in a command's word, an assignment before
// the program's name (PUSHOVER_APP=… ~/bin/notify) or a form's field
// (curl -d app=…), was judged as settings are only where it ended the
// line, so a hook's command in ~/.claude/settings.json, a ~/bin
// program's line and a skill's note's code written so crossed. The
// attack, from inside: read the settings' copy, the program, the note. Proof: neither token is readable
// inside; a hook that gives git's empty tree to a name is still there.
func TestReplayReview41InTokenGivenInCommand(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "purge"), "#!/bin/sh\nCF=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7 ~/bin/cf-api purge_cache \"$1\"\n")
	if err := os.Chmod(filepath.Join(bin, "purge"), 0o755); err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"hooks":{
"Stop":[{"hooks":[{"type":"command","command":"PUSHOVER_APP=azgdhr9x2kq7mvp3lw8ncf5tby1ejs ~/bin/notify done"}]}],
"Notification":[{"hooks":[{"type":"command","command":"curl -s -d app=Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH -d message=waiting https://notify.example.com/send"}]}],
"SessionStart":[{"hooks":[{"type":"command","command":"EMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904 echo R41-KEPT-HOOK"}]}]}}`)
	skill := filepath.Join(claude, "skills", "notify")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: notify\ndescription: tell me when done\n---\nRun:\n\n```sh\nPUSHOVER_USER=uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d ~/bin/notify done\n```\n")
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/.claude/settings.json ~/bin/purge ~/.claude/skills/notify/SKILL.md; true")
	t.Log(out)
	for _, secret := range []string{"azgdhr9x2kq7mvp3lw8ncf5tby1ejs", "Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH", "1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7", "uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d"} {
		if strings.Contains(out, secret) {
			t.Errorf("a token drawn at random, given in a command's word, is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R41-KEPT-HOOK") {
		t.Errorf("inside, want the hook that gives git's empty tree to a name kept")
	}
}
