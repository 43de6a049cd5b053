package credential

import (
	"strings"
	"testing"
)

// TestTokenAfterOption: a token drawn at random given as the word after
// an option (a hook's ~/bin/pushover --app … --user …) was read as no
// one's value, where --app=… was.
func TestTokenAfterOption(t *testing.T) {
	for _, command := range []string{
		"~/bin/pushover --app azGDORePK8gMaC0QOYAMyEEuzJnyUi --user uQiRzpo4DXghDmr9QzzfQu27cmVRsG finished",
		"exec ~/bin/notify --app 'Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH' --title done \"$@\"",
		`notify -app "Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH"`,
		"cf-purge --zone example.com --global 1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7 --all",
		"notify \\\n  --device uq7kx2m9pl0r4tnv8bz3j5w6y1hg0d \\\n  done",
		"(notify --app azGDORePK8gMaC0QOYAMyEEuzJnyUi)&",
	} {
		if !InCommand([]byte(command)) {
			t.Errorf("InCommand(%q) = false, want true", command)
		}
		if script := "#!/bin/sh\n" + command + "\n"; !InScript([]byte(script)) {
			t.Errorf("InScript(%q) = false, want true", script)
		}
		if note := "# Notes\n\n```sh\n" + command + "\n```\n"; !InDocument([]byte(note)) || !InLargeDocument([]byte(note)) {
			t.Errorf("InDocument or InLargeDocument(%q) = false, want true", note)
		}
	}
	for _, settings := range []string{
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/bin/pushover --app azGDORePK8gMaC0QOYAMyEEuzJnyUi finished"}]}]}}`,
		`{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"~/bin/pushover --app \"azGDORePK8gMaC0QOYAMyEEuzJnyUi\" finished"}]}]}}`,
	} {
		if !InSettings([]byte(settings)) || !InCommand([]byte(settings)) {
			t.Errorf("InSettings or InCommand(%q) = false, want true", settings)
		}
	}
	for _, command := range []string{
		"git show --stat 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
		"git diff --name-only e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		"gpg --recv-keys B42F6819007F00F88E364FD4036A9C25BF357DD4",
		"deploy --build-id Zx8kQ2mPp0wL7rT3vN5y",
		"verify --sha256 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"ls -- azGDORePK8gMaC0QOYAMyEEuzJnyUi",
		"notify -a azGDORePK8gMaC0QOYAMyEEuzJnyUi",
		"echo a-b azGDORePK8gMaC0QOYAMyEEuzJnyUi",
		"notify --app $PUSHOVER_APP --user \"$PUSHOVER_USER\"",
		"notify --app azGDORePK8gMaC0QOYAMyEEuzJnyUi/x",
		"notify --app\nazGDORePK8gMaC0QOYAMyEEuzJnyUi",
	} {
		if randomWord([]byte(command)) {
			t.Errorf("randomWord(%q) = true, want false", command)
		}
	}
}

// TestAppidNamesAKey: OpenWeatherMap names its API key appid, which ends
// as an identifier's name does: a weather skill's key given to it
// crossed.
func TestAppidNamesAKey(t *testing.T) {
	for _, settings := range []string{
		"units: metric\nappid: 3f1c9a7e52b84d06a1e9c7b2d4f60a8e\n",
		`{"weather": {"appId": "3f1c9a7e52b84d06a1e9c7b2d4f60a8e"}}`,
		"OWM_APP_ID=3f1c9a7e52b84d06a1e9c7b2d4f60a8e\n",
	} {
		if !InSettings([]byte(settings)) {
			t.Errorf("InSettings(%q) = false, want true", settings)
		}
	}
	for _, code := range []string{
		"r = requests.get(URL, params={\"q\": city, \"appid\": \"9d2e4b7a1c3f58e06b2a9d4c7e1f3a5b\"})\n",
		"OWM_APPID = \"9d2e4b7a1c3f58e06b2a9d4c7e1f3a5b\"\n",
	} {
		if !InCodeByName([]byte(code)) {
			t.Errorf("InCodeByName(%q) = false, want true", code)
		}
	}
	for _, settings := range []string{
		"channel_id: C04Q8ZJ7K2M9XN3B5V\n",
		`{"client_id": "Zx8kQ2mPp0wL7rT3vN5y"}`,
		"appid: 730\n",
	} {
		if InSettings([]byte(settings)) {
			t.Errorf("InSettings(%q) = true, want false", settings)
		}
	}
}

// TestTokenAfterOptionInLinearTime: each word is read back to the option
// before it once, whatever the text's words.
func TestTokenAfterOptionInLinearTime(t *testing.T) {
	for _, unit := range []string{"--id Zx8kQ2mPp0wL7rT3vN5y ", "-a Zx8kQ2mPp0wL7rT3 ", "   \t", "--" + strings.Repeat("a", 100) + " 'Zx8kQ2mPp0wL7rT3/", "- Zx8kQ2mPp0wL7rT3 "} {
		judgedLinearly(t, "randomWord", func(b []byte) { randomWord(b) }, 32<<10, unit)
	}
}

// TestTokenAsListItemInLinearTime: each item is read back to the list's
// name once, whatever the text's lists.
func TestTokenAsListItemInLinearTime(t *testing.T) {
	for _, unit := range []string{`ids: ["Zx8kQ2mPp0wL7rT3vN5y", `, "\n  - Zx8kQ2mPp0wL7rT3vN5y", "[  \t", "- Zx8kQ2mPp0wL7rT3 "} {
		judgedLinearly(t, "randomValue", func(b []byte) { randomValue(b) }, 32<<10, unit)
	}
}

// TestTokenAsListItem: a token drawn at random given as a JSON array's
// element or a YAML list's item was given to no name of its own, and
// crossed, under a name that says a key ("keys") or nothing.
func TestTokenAsListItem(t *testing.T) {
	for _, settings := range []string{
		`{"pushover": ["azGDORePK8gMaC0QOYAMyEEuzJnyUi", "uQiRzpo4DXghDmr9QzzfQu27cmVRsG"]}`,
		`{"keys": ["x", "azGDORePK8gMaC0QOYAMyEEuzJnyUi"]}`,
		"pushover:\n  - azGDORePK8gMaC0QOYAMyEEuzJnyUi\n",
		"cloudflare:\n  keys:\n    - '1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7'\n",
		"pushover: ['azGDORePK8gMaC0QOYAMyEEuzJnyUi']\n",
	} {
		if !InSettings([]byte(settings)) || !InLargeSettings([]byte(settings)) {
			t.Errorf("InSettings or InLargeSettings(%q) = false, want true", settings)
		}
	}
	for _, settings := range []string{
		`{"ids": ["azGDORePK8gMaC0QOYAMyEEuzJnyUi"]}`,
		"sha256:\n  - 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n",
		"steps:\n  - azGDORePK8gMaC0QOYAMyEEuzJnyUi then more words\n",
		"note: use the key\n- azGDORePK8gMaC0QOYAMyEEuzJnyUi is it\n",
		"note: pick a - azGDORePK8gMaC0QOYAMyEEuzJnyUi\n",
		`{"x": ["azGDORePK8gMaC0QOYAMyEEuzJnyUi/path"]}`,
		"opts=-v\ncase $1 in\n  (-[0123456789abcdEFGhHiIKlLnoPqrRsTuUvVwxyzZ]*) x=1;;\nesac\n",
	} {
		if randomValue([]byte(settings)) {
			t.Errorf("randomValue(%q) = true, want false", settings)
		}
	}
}
