package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview40InTokensDrawnAtRandom: a token with no prefix given
// to a name that says nothing was found only where it held small and
// capital letters and digits and few runs of letters, so a token in hex
// (Cloudflare's global API key, OpenWeatherMap's), in one case of
// letters and digits (Pushover's, Alpha Vantage's), one of 16 to 23
// characters, and four in five tokens drawn at random from small and
// capital letters (a Python secrets.choice token) crossed, as did any in
// settings over 16 KiB. The attack, from inside: read CLAUDE.md and a
// skill's settings. Proof: none is readable inside; an identifier's
// value (a commit, a tenant's UUID, a checksum) still is.
func TestReplayReview40InTokensDrawnAtRandom(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "ops")
	h.Write(filepath.Join(h.Home, ".claude", "CLAUDE.md"), "# Notes\n\n- Cloudflare: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1\n- Netlify: DcmJKWAjvBiKPfGwjJbYUpTXggfLE4RnS15YaRqb\n")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ops\ndescription: the site's services\n---\nRead the settings beside this file.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"zone": "example.com", "cloudflare": "4e07408562bedb8b60ce05c1decfe3ad16b7223", "pushover": {"user": "uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d", "app": "azgdhr9x2kq7mvp3lw8ncf5tby1ejs"}}`+"\n")
	h.Write(filepath.Join(skill, "weather.yaml"), "units: metric\nowm: 3f2a9c1b7e4d5a6f8b0c2d4e6f8a1b3c\n")
	h.Write(filepath.Join(skill, "market.toml"), "[quotes]\nalphavantage = \"Q7XK2M9PLR4TNV8B\"\n")
	var large strings.Builder
	for large.Len() <= 20<<10 {
		large.WriteString("- site: www.example.com\n  region: eu-west-1\n  replicas: 3\n")
	}
	large.WriteString("netlify: jbEbLZAYZwH0Shw01I3mfyqB39K9X2dJEtEGXkYV\n")
	h.Write(filepath.Join(skill, "sites.yaml"), large.String())
	h.Write(filepath.Join(skill, "ids.json"), `{"commit": "8f14e45fceea167a5a36dedd4bea2543aa1b2c3d", "tenant": "72f988bf-86f1-41af-91ab-2d7cd011db47", "md5": "5588a7b18261c20068beabfb4f530b87", "note": "R40-HARMLESS-ID"}`+"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/skills/ops/*; true")
	t.Log(out)
	for _, secret := range []string{
		"9f86d081884c7d659a2feaa0c55ad015a3bf4f1", "DcmJKWAjvBiKPfGwjJbYUpTXggfLE4RnS15YaRqb",
		"4e07408562bedb8b60ce05c1decfe3ad16b7223", "uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d", "azgdhr9x2kq7mvp3lw8ncf5tby1ejs",
		"3f2a9c1b7e4d5a6f8b0c2d4e6f8a1b3c", "Q7XK2M9PLR4TNV8B", "jbEbLZAYZwH0Shw01I3mfyqB39K9X2dJEtEGXkYV",
	} {
		if strings.Contains(out, secret) {
			t.Errorf("a token drawn at random is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R40-HARMLESS-ID") {
		t.Errorf("inside, want the settings holding a commit, a tenant's UUID and a checksum")
	}
}

// TestReplayReview40InScriptTokenDrawnAtRandom: a shell script's token
// with no prefix, assigned to a variable whose name says nothing
// (CF_GLOBAL=…, the X-Auth-Key its curl then sends), was judged only
// for a name that says a credential, so a ~/bin program's, a skill's
// script and a Stop hook's script (APP=…, sent as -d app=$APP)
// crossed. The attack, from inside: read them. Proof:
// neither is readable inside; a script that assigns git's empty tree
// still runs.
func TestReplayReview40InScriptTokenDrawnAtRandom(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "cf-purge"), "#!/bin/sh\nZONE=example.com\nCF_EMAIL=ops@example.com\nCF_GLOBAL=1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7\ncurl -s -X POST -H \"X-Auth-Email: $CF_EMAIL\" -H \"X-Auth-Key: $CF_GLOBAL\" \"https://api.cloudflare.com/client/v4/zones/$ZONE/purge_cache\"\n")
	h.Write(filepath.Join(bin, "greet"), "#!/bin/sh\nEMPTY_TREE=4b825dc642cb6eb9a060e54bf8d69288fbee4904\necho R40-GREET\n")
	for _, name := range []string{"cf-purge", "greet"} {
		if err := os.Chmod(filepath.Join(bin, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	skill := filepath.Join(h.Home, ".claude", "skills", "notify")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: notify\ndescription: send a push\n---\nRun notify.sh.\n")
	h.Write(filepath.Join(skill, "notify.sh"), "#!/bin/sh\nPUSHOVER_APP=azgdhr9x2kq7mvp3lw8ncf5tby1ejs\ncurl -s -F \"token=$PUSHOVER_APP\" -F \"message=$1\" https://api.pushover.net/1/messages.json\n")
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/.claude/hooks/done.sh"}]}]}}`)
	h.Write(filepath.Join(claude, "hooks", "done.sh"), "#!/bin/sh\nAPP=Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH\ncurl -s -d \"app=$APP\" -d message=done https://notify.example.com/send\n")
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/bin/cf-purge ~/.claude/skills/notify/notify.sh ~/.claude/hooks/done.sh; greet; true")
	t.Log(out)
	for _, secret := range []string{"1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7", "azgdhr9x2kq7mvp3lw8ncf5tby1ejs", "Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH"} {
		if strings.Contains(out, secret) {
			t.Errorf("a script's token drawn at random is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R40-GREET") {
		t.Errorf("inside, want the script that assigns git's empty tree to run")
	}
}
