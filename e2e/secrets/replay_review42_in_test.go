package secrets

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview42InTokenAfterOption: a token drawn at random given as
// the word after an option (a hook's ~/bin/pushover --app … --user …, a
// ~/bin script's notify --app …, a skill's note's code) was read as no
// one's value, where --app=… was: it crossed. The attack, from inside:
// read the settings, the script and the note. Proof: none is readable
// inside; a hook that names a commit after an option (git show --stat
// <commit>) still is.
func TestReplayReview42InTokenAfterOption(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	bin := filepath.Join(h.Home, "bin")
	h.Write(filepath.Join(bin, "done"), "#!/bin/sh\nexec ~/bin/notify --app 'Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH' --title done \"$@\"\n")
	if err := os.Chmod(filepath.Join(bin, "done"), 0o755); err != nil {
		t.Fatal(err)
	}
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "settings.json"), `{"hooks":{
"Stop":[{"hooks":[{"type":"command","command":"~/bin/pushover --app azGDORePK8gMaC0QOYAMyEEuzJnyUi --user uQiRzpo4DXghDmr9QzzfQu27cmVRsG finished"}]}],
"SessionStart":[{"hooks":[{"type":"command","command":"git show --stat 4b825dc642cb6eb9a060e54bf8d69288fbee4904 >/dev/null; echo R42-KEPT-HOOK"}]}]}}`)
	skill := filepath.Join(claude, "skills", "notify")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: notify\ndescription: tell me when done\n---\nRun:\n\n```sh\n~/bin/notify --device uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d done\n```\n")
	env := []string{"PATH=" + bin + ":" + h.Bin + ":/usr/local/bin:/usr/bin:/bin"}
	out := h.Inside(proj, env, "exec 2>&1; cat ~/.claude/settings.json ~/bin/done ~/.claude/skills/notify/SKILL.md; true")
	t.Log(out)
	for _, secret := range []string{"azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", "Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH", "uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d"} {
		if strings.Contains(out, secret) {
			t.Errorf("a token drawn at random, given after an option, is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R42-KEPT-HOOK") {
		t.Errorf("inside, want the hook that names a commit after an option kept")
	}
}

// TestReplayReview42InWeatherAppid: OpenWeatherMap names its API key
// appid, and a name ending in id was read as an identifier's, whatever
// its value: a weather skill's config.yaml appid: …, its weather.py
// params={"appid": "…"} crossed. The attack, from inside: read the
// skill. Proof: neither key is readable inside; a skill's settings that
// give a channel's id a value drawn at random still are.
func TestReplayReview42InWeatherAppid(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "weather")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: weather\ndescription: today's weather\n---\nRun weather.py with a city.\n")
	h.Write(filepath.Join(skill, "config.yaml"), "units: metric\nappid: 3f1c9a7e52b84d06a1e9c7b2d4f60a8e\n")
	h.Write(filepath.Join(skill, "weather.py"), "import sys, requests\n\nr = requests.get(\"https://api.openweathermap.org/data/2.5/weather\", params={\"q\": sys.argv[1], \"appid\": \"9d2e4b7a1c3f58e06b2a9d4c7e1f3a5b\"})\nprint(r.json())\n")
	h.Write(filepath.Join(skill, "slack.yaml"), "# R42-KEPT-SETTINGS\nchannel_id: C04Q8ZJ7K2M9XN3B5V\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/weather/*; true")
	t.Log(out)
	for _, secret := range []string{"3f1c9a7e52b84d06a1e9c7b2d4f60a8e", "9d2e4b7a1c3f58e06b2a9d4c7e1f3a5b"} {
		if strings.Contains(out, secret) {
			t.Errorf("a weather API's appid is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R42-KEPT-SETTINGS") {
		t.Errorf("inside, want the skill's settings that give a channel's id")
	}
}

// TestReplayReview42InTokenAsListItem: a token drawn at random given as
// a JSON array's element or a YAML list's item had no name of its own,
// and crossed: a skill's config.json {"pushover": ["…", "…"]}, its
// keys.yaml's cloudflare keys: - '…'. The attack, from inside: read the
// skill. Proof: none is readable inside; a skill's list of checksums
// under sha256 still is.
func TestReplayReview42InTokenAsListItem(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "proj")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "ops")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ops\ndescription: purge the CDN, send a push\n---\nRead config.json and keys.yaml.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"pushover": ["azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"]}`+"\n")
	h.Write(filepath.Join(skill, "keys.yaml"), "cloudflare:\n  keys:\n    - '1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7'\n")
	h.Write(filepath.Join(skill, "mirrors.yaml"), "# R42-KEPT-LIST\nsha256:\n  - 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/skills/ops/*; true")
	t.Log(out)
	for _, secret := range []string{"azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG", "1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7"} {
		if strings.Contains(out, secret) {
			t.Errorf("a token drawn at random, given as a list's item, is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R42-KEPT-LIST") {
		t.Errorf("inside, want the skill's list of checksums")
	}
}
