package probe

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/claudebox/claudebox/gitconfig"
	"github.com/claudebox/claudebox/mount"
)

// gitSecretName and gitSecretText say a git configuration entry may hold
// a credential: a variable named for one (sendemail.smtpPass, github.token,
// http.extraHeader), a URL with a user in its key or value (the usual
// recipe for private Go modules, url."https://user:TOKEN@github.com/".insteadOf),
// a header or a helper that prints a password.
var (
	gitSecretName = regexp.MustCompile(`(?i)token|pass|secret|auth|header|cookie`)
	gitSecretText = regexp.MustCompile(`(?i)://[^\s/@]+@|bearer|basic\s|token|password`)
)

func gitSecretEntry(e gitconfig.Entry) bool {
	name := e.Key[strings.LastIndexByte(e.Key, '.')+1:]
	return gitSecretName.MatchString(name) || gitSecretText.MatchString(e.Key) || gitSecretText.MatchString(e.Value)
}

// gitConfigCopies are private copies, for inside, of the user's git
// configuration files (~/.gitconfig, ~/.config/git/config) that may hold a
// credential, without the entries that may (the identity, aliases and the
// rest stay): mounted over the file, read-only. One git cannot read
// becomes an empty copy. It returns the copies and the paths they stand
// for.
func gitConfigCopies(home string) ([]mount.Mount, map[string]bool) {
	var copies []mount.Mount
	covered := map[string]bool{}
	for _, f := range []string{filepath.Join(home, ".gitconfig"), filepath.Join(home, ".config", "git", "config")} {
		real, err := filepath.EvalSymlinks(f)
		if err != nil || !holdsCredential(real) {
			continue
		}
		var kept []gitconfig.Entry
		entries, err := gitconfig.Read(real)
		for _, e := range entries {
			if !gitSecretEntry(e) {
				kept = append(kept, e)
			}
		}
		if err == nil && len(kept) == len(entries) {
			continue
		}
		copies = append(copies, mount.Mount{Kind: mount.RoBindData, Dest: f, Content: string(gitconfig.Format(kept)), Why: "git configuration, a private copy without what may be a credential", Role: mount.HostFiles})
		covered[f] = true
	}
	return copies, covered
}
