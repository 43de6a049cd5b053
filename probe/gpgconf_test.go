package probe

import (
	"reflect"
	"testing"
)

// A gpg settings file's copy keeps the options known harmless and names
// the others (a passphrase, a keyserver with a login, a program) by
// option and line.
func TestGPGSettingsView(t *testing.T) {
	conf := "# mine: passphrase hunter3\ndefault-key 0xABCD\nkeyid-format long\npassphrase hunter2\n" +
		"keyserver hkps://alice:pw@keys.example\nphoto-viewer \"eog %i\"\n\n--armor\nsig-notation x@y=1\n"
	kept, dropped := gpgSettingsView([]byte(conf))
	if want := "default-key 0xABCD\nkeyid-format long\n\n--armor\n"; string(kept) != want {
		t.Errorf("kept\n%s\nwant\n%s", kept, want)
	}
	if want := []string{"passphrase (line 4)", "keyserver (line 5)", "photo-viewer (line 6)", "sig-notation (line 9)"}; !reflect.DeepEqual(dropped, want) {
		t.Errorf("dropped %q, want %q", dropped, want)
	}
}
