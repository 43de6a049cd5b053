package credential

import (
	"strings"
	"testing"
)

// TestTokenGivenANameInCode: a skill's script or source gives a token
// drawn at random, quoted, to a name that says nothing; InCode alone let
// it cross (CF = "…" in a skill's purge.py).
func TestTokenGivenANameInCode(t *testing.T) {
	for _, s := range []string{
		"ZONE = \"example.com\"\nCF = \"1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7\"\n",
		"const PUSHOVER_APP = 'azgdhr9x2kq7mvp3lw8ncf5tby1ejs';\n",
		"export const netlify = `DcmJKWAjvBiKPfGwjJbYUpTXggfLE4RnS15YaRqb`;\n",
		"SERVICES = {\"cloudflare\": \"4e07408562bedb8b60ce05c1decfe3ad16b7223\", \"zone\": \"example.com\"}\n",
		"$owm = '3f2a9c1b7e4d5a6f8b0c2d4e6f8a1b3c';\n",
		"alphavantage := \"Q7XK2M9PLR4TNV8B\"\n",
		"headers = { 'X-App': \"Pac6iRol93JdHwcqjLgeTr0TmNKFthMDVl7p2nsH\" }\n",
	} {
		if InCode([]byte(s)) {
			t.Errorf("InCode(%q) = true: the case tests nothing InCode did not find", s)
		}
		if !InCodeByName([]byte(s)) {
			t.Errorf("InCodeByName(%q) = false, want true", s)
		}
	}
	for _, s := range []string{
		// Code's own names, no string.
		"\t\tv.Op = OpAMD64VAESDEC128\n",
		"\tCurrentPCLnTabMagic = Go120PCLnTabMagic\n",
		// A comment's output, a URL's parameter.
		"\t// Output: a948904f2f0f479b8f8197694b30184b0d2ed1c1cd2a1ec0fb85d299a192a447\n",
		"// https://source.example.com/x.h;l=34;drc=1946212ac0100668f14eb9e2843bdd846e510a1e\n",
		// A test's vectors, identifiers, checksums.
		"expected = '6e9ef29b75fffc5b7abae527d58fdadb2fe42e7219011976917343065f58ed4a'\n",
		"\twant := \"693e47972caf527c7883ad1b39822f026f47db2ab0e1919955b8993aa04411d1\"\n",
		"\t\texp   = \"2ae01472317d1935a84797ec1983ae243fc6aa28\"\n",
		"EMPTY_TREE = \"4b825dc642cb6eb9a060e54bf8d69288fbee4904\"\n",
		"SHEET_ID = '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms'\n",
		"sha256 = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"\n",
		"const tenant = \"72f988bf-86f1-41af-91ab-2d7cd011db47\";\n",
		// Words, and a value that is not whole.
		"const handler = \"ParseTimeOfDayMainWindowV1Alpha\";\n",
		"url = \"https://example.com/1e4bd0d7a3c9f26b58e7a1c4d93f0b6e2a8c5d7\"\n",
	} {
		if InCodeByName([]byte(s)) {
			t.Errorf("InCodeByName(%q) = true, want false", s)
		}
	}
}

// TestCodeByNameInLinearTime: InCodeByName reads each byte once, so
// eight times the text costs it about eight times the time, on text
// made of what it must look at and pass over (a token under an
// identifier's name, quotes without end).
func TestCodeByNameInLinearTime(t *testing.T) {
	for _, unit := range []string{`a_id = "Zx8kQ2mPp0wL7rT3vN5y", `, `"'` + "`" + `= `, strings.Repeat("Zx8kQ2mPp0wL7rT3", 9) + " = ", "Zx8kQ2mPp0wL7rT3"} {
		judgedLinearly(t, "InCodeByName", func(b []byte) { InCodeByName(b) }, 32<<10, unit)
	}
}
