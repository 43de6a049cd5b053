package credential

import (
	"strings"
	"testing"
)

// TestTokenAsURLUser: a registry's token given as a URL's user with no
// password, or the empty one Packagecloud's and Gemfury's URLs give it,
// is a credential wherever a URL is read; a user that reads as a name is
// none, and WithoutURL takes the token out.
func TestTokenAsURLUser(t *testing.T) {
	for _, text := range []string{
		"index-url = https://8f3a9b2c7d1e4f5a6b7c8d9e0f1a2b3c:@packagecloud.io/acme/repo/pypi/simple",
		"extra-index-url = https://Zq8xN3vB7mK2pL5r@pypi.fury.io/acme/",
		`"registry": "https://Zq8xN3vB7mK2pL5r:@npm.fury.io/acme/"`,
		"GOPROXY=https://a1b2c3d4e5@goproxy.corp.example.com/,direct",
	} {
		data := []byte(text)
		for name, judge := range map[string]func([]byte) bool{"InURL": InURL, "InSettings": InSettings, "InDocument": InDocument, "InCode": InCode, "InLargeSettings": InLargeSettings} {
			if !judge(data) {
				t.Errorf("%s(%q) = false, want true", name, text)
			}
		}
		if out, ok := WithoutURL(data); !ok || strings.Contains(string(out), "@") {
			t.Errorf("WithoutURL(%q) = %q, %v; want the user taken out", text, out, ok)
		}
	}
	for _, text := range []string{
		"url = ssh://git@github.com/acme/app.git",
		"remote = https://alice@bitbucket.org/acme/app.git",
		"DATABASE_URL=postgres://postgres@localhost:5432/app",
		"index-url = https://__token__@upload.pypi.org/legacy/",
		"see https://jsmith42@git.corp.example.com/team/tools",
		"smtp://john.doe@mail.example.com",
		"amqp://guest@rabbit:5672/",
	} {
		data := []byte(text)
		for name, judge := range map[string]func([]byte) bool{"InURL": InURL, "InSettings": InSettings, "InDocument": InDocument, "InCode": InCode} {
			if judge(data) {
				t.Errorf("%s(%q) = true, want false: the user reads as a name", name, text)
			}
		}
	}
}

// TestPasswordWordsOfOtherLanguages: a password given to a name or a
// label in another language than English, in settings or in a note,
// is a credential; a localised message that only names a password, or
// gives one words, a placeholder or a variable, is none.
func TestPasswordWordsOfOtherLanguages(t *testing.T) {
	settings := []string{
		`{"passwort": "Sommer2024xQ"}`,
		"kennwort=Sommer2024xQ",
		`{"contraseña": "Verano2024xQ"}`,
		"mot_de_passe: Ete2024xQzz",
		`{"senha_banco": "Verao2024xQ"}`,
		`{"пароль": "Leto2024xQzz"}`,
		`{"密码": "Xia2024xQzz"}`,
		`{"パスワード": "Natsu2024xQ"}`,
		`{"비밀번호": "Yeoreum2024xQ"}`,
		"wachtwoord = Zomer2024xQ",
		`{"hasło": "Lato2024xQzz"}`,
		`{"lösenord": "Sommar2024xQ"}`,
		`{"salasana": "Kesa2024xQzz"}`,
		`{"şifre": "Yaz2024xQzzz"}`,
		`{"heslo": "Leto2024xQzz"}`,
		`{"كلمة_المرور": "Sayf2024xQzz"}`,
		`{"DB_PASSWORT": "Sommer2024xQ"}`,
	}
	for _, text := range settings {
		if !InSettings([]byte(text)) {
			t.Errorf("InSettings(%q) = false, want true", text)
		}
	}
	prose := []string{
		"- Staging-DB Passwort: Sommer2024xQ",
		"- Mot de passe du serveur : Ete2024xQzz",
		"- Contraseña de la base: `Verano2024xQ`",
		"- Пароль от сервера: Leto2024xQzz",
		"- 数据库密码：Xia2024xQzz",
		"- サーバーのパスワード: Natsu2024xQ",
		"| Senha do banco | Verao2024xQ |",
	}
	for _, text := range prose {
		if !InDocument([]byte(text)) {
			t.Errorf("InDocument(%q) = false, want true", text)
		}
	}
	for _, text := range []string{
		`{"login.password": "${PASSWORT}"}`,
		`{"hint": "Passwort vergessen? Hier klicken"}`,
		"- 密码：请联系管理员",
		"- Пароль: хранится в Vault",
		`{"senha": ""}`,
		`{"kennwort_min": 12}`,
		"Contraseña: <tu-contraseña>",
		"Passwort: $DB_PASSWORT",
		"Passwortrichtlinie: https://wiki.corp.example.com/passwort",
		"<description>$jelszo=&quot;******&quot;;</description>",
	} {
		if InSettings([]byte(text)) || InDocument([]byte(text)) {
			t.Errorf("%q is taken to hold a credential: it gives a password's word none", text)
		}
	}
	// Prose gives a label words, which settings would not.
	for _, text := range []string{"Das Passwort: siehe Tresor", "Le mot de passe est dans le coffre.", "- Mot de passe : votre-mot-de-passe"} {
		if InDocument([]byte(text)) {
			t.Errorf("InDocument(%q) = true, want false: a label given words", text)
		}
	}
}

// TestLargeTextsReadAsSmall: settings and prose past settings' bound
// (16 KiB) are judged for what the small ones are: a password's word
// joined to its name, a TOTP seed, recovery words, a cookie file's
// line, a label's value at a line's end, in English or another
// language; a large text with none holds none.
func TestLargeTextsReadAsSmall(t *testing.T) {
	settingsFiller := strings.Repeat(`  {"name": "item", "bypass": "localhost", "compass": "north", "integrity": "sha512-QYq3TIeE6nxHppbo2LGymrG5Pw=="},`+"\n", 300)
	proseFiller := strings.Repeat("A line of what the team wrote down about the password policy, at length.\n", 300)
	for _, text := range []string{
		`  "SMTPPass": "Sommer2024xQ",`,
		"DBPASS=Sommer2024xQ",
		`  "totp": "KRUG S4ZA NFZS A2LU",`,
		`  "mnemonic": "legal winner thank year wave sausage worth useful legal winner thank yellow",`,
		".example.com\tTRUE\t/\tTRUE\t1767225600\tsession\tR39cookieValue9x",
		`  "passwort": "Sommer2024xQ",`,
	} {
		data := []byte("[\n" + settingsFiller + text + "\n" + settingsFiller + "]\n")
		if !InLargeSettings(data) {
			t.Errorf("InLargeSettings(%d bytes around %q) = false, want true", len(data), text)
		}
	}
	if data := []byte("[\n" + settingsFiller + "]\n"); InLargeSettings(data) {
		t.Errorf("InLargeSettings of the filler alone = true, want false")
	}
	for _, text := range []string{
		"- Staging DB password: R39stagingPw9",
		"- Staging-DB Passwort: Sommer2024xQ",
		".example.com\tTRUE\t/\tTRUE\t1767225600\tsession\tR39cookieValue9x",
	} {
		data := []byte(proseFiller + text + "\n" + proseFiller)
		if !InLargeDocument(data) {
			t.Errorf("InLargeDocument(%d bytes around %q) = false, want true", len(data), text)
		}
	}
	if data := []byte(proseFiller); InLargeDocument(data) {
		t.Errorf("InLargeDocument of the filler alone = true, want false")
	}
}

// hostileLines is 16 MiB of line, said again and again.
func hostileLines(line string) []byte {
	return []byte(strings.Repeat(line, 16<<20/len(line)))
}

// BenchmarkInLargeDocumentHostile: large prose whose every line holds a
// label's hint and a separator, in English and another language, which
// the line-by-line rules read.
func BenchmarkInLargeDocumentHostile(b *testing.B) {
	for name, line := range map[string]string{
		"labels":   "- the token: see the vault, it is kept there\n",
		"passwort": "- Passwort vergessen: siehe Tresor, dort\n",
		"cjk":      "- 数据库密码：请联系管理员\n",
		"nolines":  strings.Repeat("Passwort ", 64),
	} {
		data := hostileLines(line)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				InLargeDocument(data)
			}
		})
	}
}

// BenchmarkInLargeSettingsHostile: large settings whose every key ends
// as a joined password's name, a TOTP's or recovery words' does, given
// a value that is none, and keys of another language's password.
func BenchmarkInLargeSettingsHostile(b *testing.B) {
	for name, line := range map[string]string{
		"joined":   `"bypass": "x", "compass": "${X}", `,
		"seed":     `"seed": 42, "phrase": "a b", `,
		"passwort": `{"passwort_min": 12}, `,
	} {
		data := hostileLines(line)
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				InLargeSettings(data)
			}
		})
	}
}

// TestRandomValueUnderAnyName: a token of no known prefix, as
// Cloudflare's and Vercel's are, given whole to a setting's name that
// says nothing is a credential by its draw; an identifier's value, a
// name in camel case, a hash, a base64 with its padding are none.
func TestRandomValueUnderAnyName(t *testing.T) {
	for _, text := range []string{
		`{"cloudflare": "Zq8xN3vB7mK2pL5rT9wYa8Fh3Kd6Jc1Vb0Nm4Xz"}`,
		`{"vercel": "aBcD1234eFgH5678iJkL9012"}`,
		"cf: Zq8xN3vB7mK2pL5rT9wYa8Fh3Kd6Jc1Vb0Nm4Xz\n",
		"[deploy]\nprod = 'Kd6Jc1Vb0Nm4XzZq8xN3vB7mK2pL5r'\n",
		"NETLIFY=nfp_x-Zq8xN3vB7mK2pL5rT9wYa8Fh\n",
	} {
		if !InSettings([]byte(text)) {
			t.Errorf("InSettings(%q) = false, want true", text)
		}
	}
	for _, text := range []string{
		`{"spreadsheet_id": "1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms"}`,
		`{"flag": "EnableMASM51Compatibility"}`,
		`{"method": "ParseTimeOfDayMainWindowV1Alpha"}`,
		`{"tier": "LOOKER_CORE_NONPROD_STANDARD_ANNUAL"}`,
		`{"integrity": "sha512-QYq3TIeE6nxHppbo2LGymrG5Pw=="}`,
		"commit: 8f14e45fceea167a5a36dedd4bea2543aa1b2c3d\n",
		"pkg/x.py,sha256=Zq8xN3vB7mK2pL5rT9wYa8Fh3Kd6Jc1Vb0Nm4Xz,1024\n",
		`{"note": "see Zq8xN3vB7mK2pL5rT9wYa8Fh3Kd6Jc1Vb0Nm4Xz in the log"}`,
	} {
		if InSettings([]byte(text)) {
			t.Errorf("InSettings(%q) = true, want false", text)
		}
	}
}

// TestRandomValueInProse: a token drawn at random given to a label in
// a note is one; a label's identifier or words are none.
func TestRandomValueInProse(t *testing.T) {
	for text, want := range map[string]bool{
		"# Notes\n\n- Cloudflare: Kd6Jc1Vb0Nm4XzZq8xN3vB7mK2pL5rT9wYa8Fh3\n": true,
		"- Sheet ID: 1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms\n":         false,
		"- Flag: EnableMASM51Compatibility\n":                                false,
	} {
		if got := InDocument([]byte(text)); got != want {
			t.Errorf("InDocument(%q) = %v, want %v", text, got, want)
		}
		if got := InLargeDocument([]byte(text)); got != want {
			t.Errorf("InLargeDocument(%q) = %v, want %v", text, got, want)
		}
	}
}
