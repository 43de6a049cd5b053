package credential

import (
	"encoding/base64"
	"testing"
)

// TestNamedPropertyAndEncodedKey: a credential given to a name in
// Hadoop's XML or as a spaced .properties line, and a private key in
// base64 (a kubeconfig's client-key-data), are found; the same shapes
// holding none (a user's name, a switch, a variable's reference, a path,
// a certificate in base64) are not.
func TestNamedPropertyAndEncodedKey(t *testing.T) {
	key := base64.StdEncoding.EncodeToString([]byte("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0HLgvpsbGmVyb3VuZWQz2kQ8r7x1ZpLmT2vXr7BQpwZkLmTvXrB\n-----END RSA PRIVATE KEY-----\n"))
	cert := base64.StdEncoding.EncodeToString([]byte("-----BEGIN CERTIFICATE-----\nMIICqDCCAZCgAwIBAgIIexampleexampleexampleexampleexampleexample\n-----END CERTIFICATE-----\n"))
	for text, want := range map[string]bool{
		"<property>\n  <name>fs.s3a.secret.key</name>\n  <value>wJalrXUtnFEMIK7MDENG</value>\n</property>\n": true,
		"<property><name>javax.jdo.option.ConnectionPassword</name><value>hivepw</value></property>":         true,
		"spark.master  yarn\nspark.hadoop.fs.s3a.secret.key  wJalrXUtnFEMIK7MDENG\n":                         true,
		"spark.ssl.keyPassword\tks9pass\n":                                                         true,
		"users:\n- name: kind\n  user:\n    client-key-data: " + key + "\n":                        true,
		"<property><name>javax.jdo.option.ConnectionUserName</name><value>hive</value></property>": false,
		"<property><name>hadoop.security.authentication</name><value>kerberos</value></property>":  false,
		"<property><name>fs.s3a.secret.key</name><value>${env.S3_SECRET}</value></property>":       false,
		"spark.authenticate  true\nspark.ssl.keyStore /etc/ks.jks\nspark.executor.memory 4g\n":     false,
		"ca-bundle: " + cert + "\n": false,
	} {
		if got := InSettings([]byte(text)); got != want {
			t.Errorf("InSettings(%q) = %v, want %v", text, got, want)
		}
	}
	if !InCode([]byte("const kubeconfig = `client-key-data: " + key + "`\n")) {
		t.Errorf("InCode: want a key in base64 in a source's string found")
	}
	big := make([]byte, 0, 40<<10)
	for len(big) < 32<<10 {
		big = append(big, "<property><name>dfs.replication</name><value>3</value></property>\n"...)
	}
	if InLargeSettings(big) || !InLargeSettings(append(big, "<property>\n<name>fs.s3a.secret.key</name>\n<value>wJalrXUtnFEMIK7MDENG</value>\n</property>\n"...)) {
		t.Errorf("InLargeSettings: want only a large XML whose property names a credential given a literal found")
	}
}

// TestEscapedQuotes: a command written into a JSON string, each quote
// escaped, is judged as the string holds it, by the judges of a file
// and of a command (and of code, for what code does not write by
// chance: a user's password, a password option); one holding none is
// not.
func TestEscapedQuotes(t *testing.T) {
	for _, c := range []struct {
		text       string
		want, code bool
	}{
		{`{"command": "curl -s -u \"ci:hunter2x\" https://ci.example.com/x"}`, true, true},
		{`{"steps": ["docker login -u bot --password \"hunter2\" registry.corp"]}`, true, true},
		{`{"command": "curl -s -H \"X-Api-Key: abc123\" https://api.example.com/x"}`, true, false},
		{`{"command": "PGPASSWORD=\"hunter2\" psql -h db"}`, true, false},
		{`{"command": "echo \"hello\" && curl -s \"https://api.example.com/status\""}`, false, false},
	} {
		if got := InSettings([]byte(c.text)); got != c.want {
			t.Errorf("InSettings(%s) = %v, want %v", c.text, got, c.want)
		}
		if got := InCommand([]byte(c.text)); got != c.want {
			t.Errorf("InCommand(%s) = %v, want %v", c.text, got, c.want)
		}
		if got := InCode([]byte("const hooks = " + c.text + ";\n")); c.code && !got || !c.want && got {
			t.Errorf("InCode(%s) = %v", c.text, got)
		}
	}
}

// TestSignedToken: a signed JSON Web Token is a credential under any
// name, in settings, code, a script, prose and a command; one with no
// signature, a token's two first parts alone, or a word that merely
// begins as one are not.
func TestSignedToken(t *testing.T) {
	const jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoic2VydmljZV9yb2xlIn0.Zk3wQp9LmT2vXr7BQpwZkLmTvXrB"
	for text, want := range map[string]bool{
		"service_role: " + jwt + "\n":                                 true,
		"createClient(url, '" + jwt + "')\n":                          true,
		"SUPABASE_SERVICE_ROLE=" + jwt + "\n":                         true,
		"claims: eyJhbGciOiJub25lIn0.eyJyb2xlIjoiYW5vbiJ9.\n":         false,
		"header: eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoi\n": false,
		"id: x" + jwt + "\n":                                          false,
	} {
		b := []byte(text)
		if InSettings(b) != want || InCode(b) != want || InScript(b) != want || InDocument(b) != want || InCommand(b) != want {
			t.Errorf("%q: want %v from every judge", text, want)
		}
	}
}

// TestCodeInProse: prose's code (a fenced block, an inline span, a
// slash command's !`…`) that gives a literal to a name of a credential
// holds one; a placeholder, a variable, a path, a call and prose's own
// words do not.
func TestCodeInProse(t *testing.T) {
	for text, want := range map[string]bool{
		"```bash\nexport DB_PASSWORD=Zk3wQp9L\n```\n":                          true,
		"!`PGPASSWORD=Zk3wQp9L pg_dump -h db app`\n":                           true,
		"~~~yaml\npassword: Zk3wQp9L\n~~~\n":                                   true,
		"Run `MYSQL_PWD=Zk3wQp9L mysql app`.\n":                                true,
		"```bash\nexport API_KEY=your-api-key\nexport TOKEN=$MY_TOKEN\n```\n":  false,
		"```yaml\npassword: ${DB_PASSWORD}\nkey_file: /etc/app/key.pem\n```\n": false,
		"```python\ncredentials = Credentials.from_file(path)\n```\n":          false,
		"The password is hunter2, token=Zk3wQp9L in prose.\n":                  false,
	} {
		if got := InDocument([]byte(text)); got != want {
			t.Errorf("InDocument(%q) = %v, want %v", text, got, want)
		}
	}
}

// TestAccountKeyAndKeystorePassword: Azure's AccountKey and
// SharedAccessSignature in a connection string, az's --account-key, and keytool's and jarsigner's password
// options given a literal hold a credential; the emulator's shortcut,
// -storepass:env and a variable do not.
func TestAccountKeyAndKeystorePassword(t *testing.T) {
	for text, want := range map[string]bool{
		`az storage blob upload --connection-string "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zk3wQp9L==;EndpointSuffix=core.windows.net"`: true,
		`{"AzureWebJobsStorage": "DefaultEndpointsProtocol=https;AccountName=a;AccountKey=Zk3wQp9L==;EndpointSuffix=core.windows.net"}`:                   true,
		"BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sp=rl&sig=Zk3wQp9L%3D\n":                                  true,
		"az storage blob list --account-name a --account-key Zk3wQp9L==\n":                                                                                true,
		"jarsigner -keystore r.jks -storepass Zk3wQp9L app.jar release\n":                                                                                 true,
		"keytool -importkeystore -srckeystore a.p12 -srcstorepass Zk3wQp9L -destkeystore b.jks\n":                                                         true,
		`{"AzureWebJobsStorage": "UseDevelopmentStorage=true"}`:                                                                                           false,
		"jarsigner -keystore r.jks -storepass:env KS_PASS app.jar release\n":                                                                              false,
		"keytool -list -keystore r.jks -storepass \"$KS_PASS\"\n":                                                                                         false,
	} {
		if got := InSettings([]byte(text)) || InScript([]byte(text)); got != want {
			t.Errorf("%q: %v, want %v", text, got, want)
		}
	}
}
