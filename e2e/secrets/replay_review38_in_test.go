package secrets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/claudebox/claudebox/e2e/harness"
)

// TestReplayReview38InServiceTokensByShape: the tokens of the services a
// Claude Code user most often keeps beside it (Hugging Face's hf_,
// OpenAI's sk-…T3BlbkFJ…, Groq's gsk_, Tavily's tvly-, a Telegram bot's
// 123456789:AA…, Docker Hub's dckr_pat_) were known by no prefix, and
// under a name that says nothing or in prose ("- HF token: hf_…" in
// CLAUDE.md, as a # note saves it) crossed: only a few services'
// prefixes (ghp_, sk-ant-, xoxb-, AKIA, …) were. The attack, from
// inside: read them. Proof: none is inside and the launch names each; a
// skill that names hf_hub_download and sk-learn still is.
func TestReplayReview38InServiceTokensByShape(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	skill := filepath.Join(claude, "skills", "research")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\n- HF token: hf_R38claudeMdHfaB3dE5gH7jK9mN1pQ2rS4\n")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: research\ndescription: search the web\n---\nSearch with Tavily, key 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\n")
	h.Write(filepath.Join(skill, "notes.txt"), "openai 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\n")
	h.Write(filepath.Join(skill, "config.json"), `{"groq": "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"}`+"\n")
	h.Write(filepath.Join(skill, "notify.py"), "import requests\n\nBOT = \"123456789:AAR38scriptTelegramaB3dE5gH7jK9mN1p\"\nrequests.post(f\"https://api.telegram.org/bot{BOT}/sendMessage\", data={\"chat_id\": 1, \"text\": \"done\"})\n")
	h.Write(filepath.Join(claude, "commands", "push.md"), "---\ndescription: push the image\n---\nLog in to Docker Hub as ops with dckr_pat_R38commandDockeraB3dE5gH7jK, then push.\n")
	h.Write(filepath.Join(claude, "skills", "models", "SKILL.md"), "---\nname: models\ndescription: models\n---\nDownload with `hf_hub_download(repo_id, filename)`; fit with sk-learn (R38-HARMLESS-NAMES).\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R38[A-Za-z-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R38claudeMdHf", "R38skillTavily", "R38notesOpenAi", "R38configGroq", "R38scriptTelegram", "R38commandDocker"} {
		if strings.Contains(out, secret) {
			t.Errorf("a service's token known by its shape is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R38-HARMLESS-NAMES") {
		t.Errorf("inside, want the skill that names hf_hub_download and sk-learn")
	}
	for _, f := range []string{"CLAUDE.md", "research/SKILL.md", "research/notes.txt", "research/config.json", "research/notify.py", "push.md"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview38InLabelledSecretInProse: a note to oneself gives a
// password or a key its label and its value on one line, as a # note
// saves it in CLAUDE.md ("- Staging DB password: …"), a skill's notes
// ("Weather API key = …"), its instructions ("The SMTP password is
// `…`.") and a command's table ("| token | … |"); prose was read only
// for a known token's shape or code's name given one, and each crossed.
// The attack, from inside: read them. Proof: none is inside and the
// launch names each; a skill whose labels are given a path and a
// variable's name still is.
func TestReplayReview38InLabelledSecretInProse(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	claude := filepath.Join(h.Home, ".claude")
	skill := filepath.Join(claude, "skills", "mailer")
	h.Write(filepath.Join(claude, "CLAUDE.md"), "# Notes\n\n- Use pnpm.\n- Staging DB password: R38claudePw7xK2\n")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: mailer\ndescription: send the report\n---\nSend through smtp.example.com as ops. The SMTP password is `R38skillSmtp9q4`.\n")
	h.Write(filepath.Join(skill, "notes.txt"), "Weather API key = R38notesKey4f9a2c\n")
	h.Write(filepath.Join(claude, "commands", "deploy.md"), "---\ndescription: deploy\n---\n| what | value |\n|---|---|\n| host | deploy.example.com |\n| token | R38commandTbl8z3w |\n")
	h.Write(filepath.Join(claude, "skills", "review", "SKILL.md"), "---\nname: review\ndescription: review\n---\nAuth: src/middleware/authentication.ts\nToken: `GITHUB_TOKEN`\nThe token is regenerated.\nR38-HARMLESS-LABELS\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R38[A-Za-z-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R38claudePw", "R38skillSmtp", "R38notesKey", "R38commandTbl"} {
		if strings.Contains(out, secret) {
			t.Errorf("a secret given its label in prose is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R38-HARMLESS-LABELS") {
		t.Errorf("inside, want the skill whose labels are given a path and a variable's name")
	}
	for _, f := range []string{"CLAUDE.md", "mailer/SKILL.md", "mailer/notes.txt", "deploy.md"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview38InJoinedNamesOtpSeedsAndRecoveryWords: a skill's
// settings name a password with no separator before its word (.NET's
// "SMTPPass", DBPASS=, rootpw =), keep a TOTP seed under "totp" and a
// wallet's recovery words under "mnemonic"; none of these names was
// read as a credential's, and each value crossed. The attack, from
// inside: read them. Proof: none is inside and the launch names each;
// settings that name a bypass, a seed's number and an MFA policy still
// are.
func TestReplayReview38InJoinedNamesOtpSeedsAndRecoveryWords(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "ops")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: ops\ndescription: operations\n---\nRead the settings beside this file.\n")
	h.Write(filepath.Join(skill, "appsettings.json"), `{"SMTPHost": "smtp.example.com", "SMTPPass": "R38smtpPassJ7q"}`+"\n")
	h.Write(filepath.Join(skill, "db.conf"), "DBHOST=db.internal\nDBPASS=R38dbPassCaps4x\n")
	h.Write(filepath.Join(skill, "legacy.ini"), "[ldap]\nrootpw = R38rootPw9k2m\n")
	h.Write(filepath.Join(skill, "mfa.json"), `{"issuer": "AWS", "totp": "KRUGS4ZANFZSA2LU"}`+"\n")
	h.Write(filepath.Join(skill, "wallet.yaml"), "network: mainnet\nmnemonic: \"legal winner thank year wave sausage worth useful legal winner thank yellow\"\n")
	h.Write(filepath.Join(skill, "limits.yaml"), "proxyBypass: all\nseed: 42\nmfa: required\nnote: R38-HARMLESS-SETTINGS\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa -e 'R38[A-Za-z0-9-]*' -e KRUGS4ZANFZSA2LU -e 'sausage worth' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R38smtpPass", "R38dbPassCaps", "R38rootPw", "KRUGS4ZANFZSA2LU", "sausage worth"} {
		if strings.Contains(out, secret) {
			t.Errorf("a secret under a joined name, a TOTP seed or recovery words is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R38-HARMLESS-SETTINGS") {
		t.Errorf("inside, want the settings that name a bypass, a seed's number and an MFA policy")
	}
	for _, f := range []string{"ops/appsettings.json", "ops/db.conf", "ops/legacy.ini", "ops/mfa.json", "ops/wallet.yaml"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}

// TestReplayReview38InCookieJar: a skill that fetches a video's
// transcript keeps the browser's cookies for yt-dlp (--cookies
// cookies.txt, Netscape's format: a session's cookie is its login);
// the file, prose by its extension and settings without one, held no
// name a judge reads, and crossed. The attack, from inside: read them.
// Proof: neither is inside and the launch names each; a table parted by
// tabs still is.
func TestReplayReview38InCookieJar(t *testing.T) {
	h := harness.NewHost(t)
	proj := filepath.Join(h.Home, "code", "app")
	h.GitRepo(proj)
	skill := filepath.Join(h.Home, ".claude", "skills", "transcript")
	h.Write(filepath.Join(skill, "SKILL.md"), "---\nname: transcript\ndescription: a video's transcript\n---\nRun `yt-dlp --cookies cookies.txt --write-auto-subs URL`.\n")
	h.Write(filepath.Join(skill, "cookies.txt"), "# Netscape HTTP Cookie File\n.youtube.com\tTRUE\t/\tTRUE\t1767225600\t__Secure-3PSID\tg.a000R38cookieTxt4kQ\n")
	h.Write(filepath.Join(skill, "jar"), "#HttpOnly_.google.com\tTRUE\t/\tTRUE\t0\tSID\tR38cookieJar7mZ\n")
	h.Write(filepath.Join(skill, "langs.tsv"), "code\tname\tR38-HARMLESS-TSV\nen\tEnglish\tTRUE\n")
	b, err := h.Command(proj, nil, "claudebox", "--shell", "-c", "grep -rhoa 'R38[A-Za-z0-9-]*' ~/.claude 2>/dev/null; true").CombinedOutput()
	out := string(b)
	if err != nil {
		t.Fatalf("session: %v\n%s", err, out)
	}
	t.Log(out)
	for _, secret := range []string{"R38cookieTxt", "R38cookieJar"} {
		if strings.Contains(out, secret) {
			t.Errorf("a session's cookie in a cookie file is readable inside (%s)", secret)
		}
	}
	if !strings.Contains(out, "R38-HARMLESS-TSV") {
		t.Errorf("inside, want the table parted by tabs")
	}
	for _, f := range []string{"transcript/cookies.txt", "transcript/jar"} {
		if !strings.Contains(out, f) {
			t.Errorf("the launch does not name %s", f)
		}
	}
}
