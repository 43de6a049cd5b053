package credential

import "testing"

// A URL's query and fragment are taken out whatever they hold; text
// without a URL is as it was.
func TestWithoutURLQuery(t *testing.T) {
	for in, want := range map[string]string{
		`{"url":"https://git.example.com/raw/m.json?ref=main&private_token=SECRET"}`: `{"url":"https://git.example.com/raw/m.json"}`,
		"see https://h/x#access_token=SECRET now":                                    "see https://h/x now",
		"a?b#c and https://h/plain":                                                  "",
	} {
		got, ok := WithoutURLQuery([]byte(in))
		if want == "" {
			if ok || string(got) != in {
				t.Errorf("%q: changed to %q", in, got)
			}
			continue
		}
		if !ok || string(got) != want {
			t.Errorf("%q:\ngot  %q\nwant %q", in, got, want)
		}
	}
}
