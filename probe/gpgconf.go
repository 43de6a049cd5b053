package probe

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/claudebox/claudebox/claudesettings"
	"github.com/claudebox/claudebox/printable"
)

// gpgOptions are the options of gpg.conf and common.conf a copy keeps:
// which key signs and how, how keys and signatures are listed, the
// algorithms and trust, none of which holds a secret or names a program.
// Any other (passphrase, passphrase-file, keyserver and its options, with
// a login or a proxy's password in their URLs, a program's path, what a
// later gpg adds) is left out.
var gpgOptions = []string{
	"default-key", "local-user", "default-recipient", "default-recipient-self", "no-default-recipient",
	"encrypt-to", "hidden-encrypt-to", "no-encrypt-to", "group", "ungroup",
	"keyid-format", "with-fingerprint", "with-subkey-fingerprint", "with-keygrip", "with-colons", "fixed-list-mode",
	"list-options", "verify-options", "armor", "no-armor", "textmode", "no-emit-version", "emit-version", "no-comments",
	"personal-cipher-preferences", "personal-digest-preferences", "personal-compress-preferences",
	"default-preference-list", "cert-digest-algo", "digest-algo", "cipher-algo", "compress-algo", "compress-level",
	"bzip2-compress-level", "s2k-cipher-algo", "s2k-digest-algo", "s2k-mode", "s2k-count", "disable-cipher-algo",
	"disable-pubkey-algo", "weak-digest", "allow-weak-digest-algos", "allow-weak-key-signatures", "compliance",
	"trust-model", "always-trust", "tofu-default-policy", "completes-needed", "marginals-needed", "max-cert-depth",
	"require-cross-certification", "no-require-cross-certification", "ask-cert-level", "default-cert-level",
	"default-sig-expire", "default-cert-expire", "ask-sig-expire", "no-ask-sig-expire", "ask-cert-expire",
	"use-agent", "no-use-agent", "pinentry-mode", "no-symkey-cache", "throw-keyids", "no-throw-keyids",
	"no-greeting", "no-permission-warning", "charset", "display-charset", "utf8-strings", "no-utf8-strings",
	"expert", "no-expert", "quiet", "verbose", "no-verbose", "no-tty", "batch", "no-batch", "lock-once",
	"lock-multiple", "lock-never", "ignore-time-conflict", "ignore-valid-from", "include-key-block",
	"no-include-key-block", "auto-key-import", "no-auto-key-import", "use-keyboxd", "no-autostart",
}

// gpgSettingsView is a gpg settings file with only the options gpgOptions
// names and blank lines kept, each line whole or not at all, and what it
// left out, named by option and line, never with its value. Comments are
// left out too, unnamed: gpg never reads them, and a line turned off
// (`# passphrase …`) still holds its secret.
func gpgSettingsView(b []byte) (kept []byte, dropped []string) {
	var out bytes.Buffer
	for i, line := range strings.SplitAfter(string(b), "\n") {
		words := strings.Fields(line)
		if len(words) == 0 {
			out.WriteString(line)
			continue
		}
		if strings.HasPrefix(words[0], "#") {
			continue
		}
		// gpg reads an option with or without its leading dashes.
		option := strings.ToLower(strings.TrimLeft(words[0], "-"))
		if slices.Contains(gpgOptions, option) && !claudesettings.HasCommandCredential([]byte(line)) {
			out.WriteString(line)
			continue
		}
		dropped = append(dropped, fmt.Sprintf("%s (line %d)", printable.Escape(words[0]), i+1))
	}
	return out.Bytes(), dropped
}
