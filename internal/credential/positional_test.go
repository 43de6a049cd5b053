package credential

import "testing"

// TestPositionalPassword: a password or a token given to a program in
// its place (htpasswd -b, vault login, sudo -S's input), to the
// Authorization header however short, an npm token or .npmrc's
// credential, a name in a dotted or quoted place, a key's name in code,
// or fish's and csh's export is one wherever a command, a script or
// code is judged; a variable, a placeholder, an option, a name that only
// looks like one is none.
func TestPositionalPassword(t *testing.T) {
	for text, want := range map[string]bool{
		"htpasswd -b /etc/nginx/.htpasswd admin Qz7mK2vLx9":                      true,
		"htpasswd -bc .htpasswd admin Qz7mK2vLx9":                                true,
		"htpasswd -nbB admin Qz7mK2vLx9":                                         true,
		"vault login s.AbCdEfGhIjKlMnOpQrStUvWx":                                 true,
		"vault login 9f3kQ2pLm7":                                                 true,
		"echo Qz7mK2vLx9 | sudo -S apt-get update":                               true,
		"sudo -kS true <<< Qz7mK2vLx9":                                           true,
		"mysqladmin -uroot -pQz7mK2vLx9 status":                                  true,
		"sshpass -p hunter2pw ssh host":                                          true,
		`curl -H "Authorization: token 0123456789abcdef" https://api.github.com`: true,
		`curl -H "Authorization: Bearer abc123" https://x`:                       true,
		`GOFLAGS='-ldflags=-X=main.password=Qz7mK2vLx9' go build`:                true,
		`let g:openai_key="abc123xyzDEF456uvw"`:                                  true,
		`"$DB_PASS"="Qz7mK2vLx9"`:                                                true,
		"set -x API_KEY Qz7mK2vLx9":                                              true,
		"set -gx GITHUB_TOKEN Qz7mK2vLx9":                                        true,
		"setenv API_TOKEN Qz7mK2vLx9":                                            true,
		`$env:API_KEY = "Qz7mK2vLx9"`:                                            true,
		"npm publish # npm_abcdefghijklmnopqrstuvwxyz0123456789":                 true,
		"//registry.npmjs.org/:_authToken=abcdef12-3456-7890-abcd-ef1234567890":  true,
		"_auth=dXNlcjpodW50ZXIy":                                                 true,
		"htpasswd -B .htpasswd admin":                                            false,
		"htpasswd -b .htpasswd admin \"$PASSWORD\"":                              false,
		"vault login -method=github token=$GH":                                   false,
		"vault login -":                                                          false,
		`echo "$PW" | sudo -S true`:                                              false,
		"sudo -S -v":                                                             false,
		`curl -H "Authorization: Bearer $TOKEN" https://x`:                       false,
		`curl -H "Authorization: Bearer <token>" https://x`:                      false,
		`headers['Authorization'] = 'Bearer %s' % token`:                         false,
		"npm_config_cache=/tmp/npm npm ci":                                       false,
		"echo $npm_config_user_agent_abcdefghijklmnopqrstuvwxyz":                 false,
		"set -x PATH /usr/local/bin $PATH":                                       false,
		"set -x API_KEY $OPENAI":                                                 false,
		"//registry.npmjs.org/:_authToken=${NPM_TOKEN}":                          false,
		`cache_key = "user_profile_v2_settings"`:                                 false,
		`sort_key = "abcdefghijklmnopq"`:                                         false,
		`GOFLAGS='-ldflags=-X=main.version=1.2.3' go build`:                      false,
		`PrivateKey: "_RSAPrivateKey"`:                                           false,
	} {
		cmd, script, code := InCommand([]byte(text)), InScript([]byte("#!/bin/sh\n"+text+"\n")), InCode([]byte(text))
		if cmd != want || script != want {
			t.Errorf("InCommand(%q) = %v, InScript = %v, want %v", text, cmd, script, want)
		}
		if code && !want {
			t.Errorf("InCode(%q) = true, want false", text)
		}
	}
	for text, want := range map[string]bool{
		"Run `htpasswd -b .htpasswd admin Qz7mK2vLx9` once.":             true,
		"Then `echo Qz7mK2vLx9 | sudo -S make install`.":                 true,
		"Send `Authorization: token 9f3kQ2pLm7` with each request.":      true,
		"Run `htpasswd -B .htpasswd admin` and type the password.":       false,
		"Send `Authorization: Bearer <token>` with each request.":        false,
		"The Authorization: header carries the token; vault login asks.": false,
	} {
		if got := InDocument([]byte(text)); got != want {
			t.Errorf("InDocument(%q) = %v, want %v", text, got, want)
		}
	}
}
