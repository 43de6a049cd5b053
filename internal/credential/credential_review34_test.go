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
