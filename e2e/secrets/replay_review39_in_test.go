package secrets

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview39InTokenAsURLUser: a package registry's token given as
// a URL's user with the empty password Packagecloud's and Gemfury's
// instructions write (https://TOKEN:@packagecloud.io/…), or with none
// and shorter than 20 characters (https://TOKEN@pypi.fury.io/acme/),
// crossed: the one definition of a credential in a URL knew a password,
// or a user of 20 or more token characters alone. So the copies of pip's
// and uv's settings, git's (an insteadOf's URL), a skill's settings and
// CLAUDE.md kept it. The attack, from inside: read them. Proof: no such
// token is readable inside; a URL whose user is a name
// (https://alice@…) still is.
func TestReplayReview39InTokenAsURLUser(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(h.Home, ".config", "pip", "pip.conf"), "[global]\nindex-url = https://R39pipPackagecloud8f3a9b2c7d1e4f5a6b7c:@packagecloud.io/acme/repo/pypi/simple\ntimeout = 30\n")
	h.Write(filepath.Join(h.Home, ".config", "uv", "uv.toml"), "[[index]]\nname = \"fury\"\nurl = \"https://R39uvFury2pL5r@pypi.fury.io/acme/\"\n")
	h.Write(filepath.Join(h.Home, ".gitconfig"), "[user]\n\tname = Alice\n[url \"https://R39gitUser7Kd2Pq@github.com/acme/\"]\n\tinsteadOf = https://github.com/acme/\n")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\n- Our private index: https://R39claudeFury4Wx:@pypi.fury.io/acme/\n")
	skill := filepath.Join(claude, "skills", "publish")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: publish\ndescription: publish the package\n---\nRead config.json, then publish.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"registry": "https://R39skillFury9Zq8x:@npm.fury.io/acme/"}`+"\n")
	h.Write(filepath.Join(skill, "mirror.json"), `{"clone": "https://alice@git.corp.example.com/team/tools", "note": "R39-HARMLESS-USER"}`+"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.config/pip/pip.conf ~/.config/uv/uv.toml ~/.gitconfig; git config --global --list; grep -rhoa 'R39[A-Za-z0-9-]*' ~/.claude; true")
	t.Log(out)
	for _, secret := range []string{"R39pipPackagecloud", "R39uvFury", "R39gitUser", "R39claudeFury", "R39skillFury"} {
		if strings.Contains(out, secret) {
			t.Errorf("a registry's token given as a URL's user is readable inside (%s)", secret)
		}
	}
	for _, want := range []string{"R39-HARMLESS-USER", "user.name=Alice"} {
		if !strings.Contains(out, want) {
			t.Errorf("inside, want %q, known harmless", want)
		}
	}
}

// TestReplayReview39InPasswordWordsOfOtherLanguages: every judge read a
// password's name in English only (password, passwd, pwd, pass), so a
// password a note or a setting gives its name in another language
// crossed: CLAUDE.md's "- Passwort der Staging-DB: …" (as a # note saves
// it), a skill's {"contraseña": "…"}, its notes' "- 数据库密码：…", a
// command's "Пароль от сервера: …". The attack, from inside: read them.
// Proof: none is readable inside; a skill in German that names a
// password and gives it none still is.
func TestReplayReview39InPasswordWordsOfOtherLanguages(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notizen\n\n- pnpm benutzen.\n- Passwort der Staging-DB: R39claudeSommer24\n")
	skill := filepath.Join(claude, "skills", "base")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: base\ndescription: consulta la base\n---\nLee config.json.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"usuario": "ops", "contraseña": "R39skillVerano24"}`+"\n")
	h.Write(filepath.Join(skill, "notes.md"), "# 备注\n\n- 数据库密码：R39notesXia2024\n")
	h.Write(filepath.Join(claude, "commands", "deploy.md"), "---\ndescription: deploy\n---\nСервер: deploy.example.com\nПароль от сервера: R39commandLeto24\n")
	h.Write(filepath.Join(claude, "skills", "login", "SKILL.md"), "---\nname: login\ndescription: Anmeldung\n---\nPasswort vergessen? Das Passwort steht im Tresor (R39-HARMLESS-WORDS).\n")
	out := h.Inside(proj, nil, "exec 2>&1; grep -rhoa 'R39[A-Za-z0-9-]*' ~/.claude; true")
	t.Log(out)
	for _, secret := range []string{"R39claudeSommer", "R39skillVerano", "R39notesXia", "R39commandLeto"} {
		if strings.Contains(out, secret) {
			t.Errorf("a password named in another language is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R39-HARMLESS-WORDS") {
		t.Errorf("inside, want the skill that names a password and gives it none")
	}
}

// TestReplayReview39InLargeTexts: past 16 KiB, prose was judged as code
// alone and settings for a few names: a CLAUDE.md grown long with a #
// note's "- Staging DB password: …", a skill's cookies.txt as a browser
// exports it (tens of KiB) and a large appsettings.json's "SMTPPass", a
// TOTP seed in a large config.yaml, crossed, though each is left out of a
// small file. The attack, from inside: read them. Proof: none is
// readable inside; a large reference with none still is.
func TestReplayReview39InLargeTexts(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	var notes, cookies, settings, yaml, reference strings.Builder
	notes.WriteString("# Notes\n\n")
	cookies.WriteString("# Netscape HTTP Cookie File\n# This file was generated by a browser extension.\n\n")
	settings.WriteString("{\n  \"Logging\": {\n")
	yaml.WriteString("services:\n")
	for i := range 600 {
		fmt.Fprintf(&notes, "- Convention %d: keep functions short, name things for what they are.\n", i)
		fmt.Fprintf(&cookies, ".example%d.com\tTRUE\t/\tFALSE\t1767225600\tprefs\tlang=en&theme=dark\n", i)
		fmt.Fprintf(&settings, "    \"Category%d\": \"Information\",\n", i)
		fmt.Fprintf(&yaml, "  svc%d:\n    host: svc%d.internal\n    port: %d\n", i, i, 8000+i)
		fmt.Fprintf(&reference, "Section %d. The token endpoint returns an access token; see the password policy.\n", i)
	}
	notes.WriteString("- Staging DB password: R39claudeLongPw7\n")
	cookies.WriteString("#HttpOnly_.youtube.com\tTRUE\t/\tTRUE\t1767225600\tSID\tR39cookieSession9x\n")
	settings.WriteString("    \"Default\": \"Warning\"\n  },\n  \"Smtp\": {\"Host\": \"smtp.example.com\", \"SMTPPass\": \"R39settingsSmtp7\"}\n}\n")
	yaml.WriteString("mfa:\n  totp: KRUGS4ZANFZSA2LU\n")
	reference.WriteString("R39-HARMLESS-LARGE\n")
	h.Write(filepath.Join(claude, "CLAUDE.md"), notes.String())
	skill := filepath.Join(claude, "skills", "media")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: media\ndescription: fetch transcripts\n---\nRun yt-dlp --cookies cookies.txt.\n")
	h.Write(filepath.Join(skill, "cookies.txt"), cookies.String())
	h.Write(filepath.Join(skill, "appsettings.json"), settings.String())
	h.Write(filepath.Join(skill, "config.yaml"), yaml.String())
	h.Write(filepath.Join(skill, "reference.md"), reference.String())
	for _, text := range []string{notes.String(), cookies.String(), settings.String(), yaml.String(), reference.String()} {
		if len(text) <= 16<<10 {
			t.Fatalf("a text of %d bytes: the attack needs each over 16 KiB", len(text))
		}
	}
	out := h.Inside(proj, nil, "exec 2>&1; grep -rhoa -e 'R39[A-Za-z0-9-]*' -e KRUGS4ZANFZSA2LU ~/.claude; true")
	t.Log(out)
	for _, secret := range []string{"R39claudeLongPw", "R39cookieSession", "R39settingsSmtp", "KRUGS4ZANFZSA2LU"} {
		if strings.Contains(out, secret) {
			t.Errorf("a credential in a text over 16 KiB is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R39-HARMLESS-LARGE") {
		t.Errorf("inside, want the large reference that holds no credential")
	}
}

// TestReplayReview39InTokenOfNoPrefix: a service whose token has no
// prefix (Cloudflare's API token, 40 characters; Vercel's, 24) gives no
// shape to look for, and under a name that says nothing
// ({"cloudflare": "…"}, vercel: …) in a skill's settings, or given a
// label in CLAUDE.md ("- Cloudflare: …"), it crossed. The attack, from
// inside: read them. Proof: none is readable inside; a skill's settings
// holding a Google Sheet's identifier, drawn at random too, still are.
func TestReplayReview39InTokenOfNoPrefix(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "deploy")
	h.Write(filepath.Join(h.Home, ".claude", "CLAUDE.md"), "# Notes\n\n- Cloudflare: Kd6Jc1Vb0Nm4XzZq8xN3vB7mK2pL5rT9wYa8Fh3\n")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: deploy\ndescription: deploy the site\n---\nRead config.json and deploy.yaml.\n")
	h.Write(filepath.Join(skill, "config.json"), `{"zone": "example.com", "cloudflare": "Zq8xN3vB7mK2pL5rT9wYa8Fh3Kd6Jc1Vb0Nm4Xz"}`+"\n")
	h.Write(filepath.Join(skill, "deploy.yaml"), "project: site\nvercel: aBcD1234eFgH5678iJkL9012\n")
	h.Write(filepath.Join(skill, "sheets.json"), `{"spreadsheet_id": "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms", "note": "R39-HARMLESS-ID"}`+"\n")
	out := h.Inside(proj, nil, "exec 2>&1; cat ~/.claude/CLAUDE.md ~/.claude/skills/deploy/*; true")
	t.Log(out)
	for _, secret := range []string{"Zq8xN3vB7mK2pL5rT9wYa8Fh3Kd6Jc1Vb0Nm4Xz", "aBcD1234eFgH5678iJkL9012", "Kd6Jc1Vb0Nm4XzZq8xN3vB7mK2pL5rT9wYa8Fh3"} {
		if strings.Contains(out, secret) {
			t.Errorf("a token of no known prefix is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R39-HARMLESS-ID") {
		t.Errorf("inside, want the settings holding a sheet's identifier")
	}
}
