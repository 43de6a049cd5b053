package credential

import "testing"

// TestSharedAccessSignatureHint: 3d3013d named Azure's shared access
// signature among the names a settings' key and a shell's assignment end
// in, but the expressions run only on text holding one of their hints,
// and none was in "SharedAccessSignature": a YAML key, a shell's
// assignment and an export of one, a literal each, were judged to hold
// none. A reference to a variable is still none.
func TestSharedAccessSignatureHint(t *testing.T) {
	for text, want := range map[string]bool{
		"storage:\n  SharedAccessSignature: sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2030-01-01&sig=AbCdEf0123456789xyz%3D\n": true,
		"SHARED_ACCESS_SIGNATURE=sv=2022-11-02&ss=b&srt=sco&sp=rl&sig=AbCdEf0123456789xyz\n":                             true,
		"export AZURE_SHARED_ACCESS_SIGNATURE=sv2022AbCdEf0123456789xyz\n":                                               true,
		"export AZURE_SHARED_ACCESS_SIGNATURE=$SAS\n":                                                                    false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
		if got := InScript([]byte(text)); got != want && text[0] != 's' {
			t.Errorf("InScript(%q) = %v, want %v", text, got, want)
		}
	}
}
