package claudesettings

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestPluginConfigsNumbersByName: a number a plugin's option holds is
// judged by the option's name: a numeric password or a PIN saved as a
// number crossed whatever its name said; a port or a count stays.
func TestPluginConfigsNumbersByName(t *testing.T) {
	out, dropped := pluginConfigsKept(json.RawMessage(`{"bank@m": {"options": {"pin": 47110815, "db_password": 83920571, "userPin": 90210, "port": 5432, "retries": 3}}}`))
	for _, gone := range []string{"47110815", "83920571", "90210"} {
		if strings.Contains(string(out), gone) {
			t.Errorf("kept %s: %s", gone, out)
		}
	}
	for _, kept := range []string{`"port":5432`, `"retries":3`} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("left out %s: %s", kept, out)
		}
	}
	slices.Sort(dropped)
	if want := []string{"pluginConfigs.bank@m.options.db_password", "pluginConfigs.bank@m.options.pin", "pluginConfigs.bank@m.options.userPin"}; !slices.Equal(dropped, want) {
		t.Errorf("left out %q, want %q", dropped, want)
	}
}

// TestPluginConfigsNumbersKnownQuantities: a number crosses only under a
// name that says a quantity (a port, a time, a count, a bound), in a list
// by the list's name: one named otherwise (db_pw, code, an account's
// numbers) crossed while numbers were judged by names that say a
// credential.
func TestPluginConfigsNumbersKnownQuantities(t *testing.T) {
	out, dropped := pluginConfigsKept(json.RawMessage(`{"x@m": {"options": {"db_pw": 271828, "code": 314159, "accounts": [161803, 141421], "ports": [8080, 8443], "timeout_ms": 1500, "max_results": 25, "verbose": true}}}`))
	for _, gone := range []string{"271828", "314159", "161803", "141421"} {
		if strings.Contains(string(out), gone) {
			t.Errorf("kept %s: %s", gone, out)
		}
	}
	for _, kept := range []string{`"ports":[8080,8443]`, `"timeout_ms":1500`, `"max_results":25`, `"verbose":true`} {
		if !strings.Contains(string(out), kept) {
			t.Errorf("left out %s: %s", kept, out)
		}
	}
	slices.Sort(dropped)
	if want := []string{"pluginConfigs.x@m.options.accounts[]", "pluginConfigs.x@m.options.accounts[]", "pluginConfigs.x@m.options.code", "pluginConfigs.x@m.options.db_pw"}; !slices.Equal(dropped, want) {
		t.Errorf("left out %q, want %q", dropped, want)
	}
}
