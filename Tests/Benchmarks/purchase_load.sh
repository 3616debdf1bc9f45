# Sourced by purchase_bench.sh and purchase_ab.sh: the load both drive, so the two measure the same purchases.

# Waits for the server on `port` to answer, creates `count` launched installs (each its own Apple Account) and
# writes `lua`, a wrk script in which each wrk thread buys the coffee tip on an install of its own (an install
# allows one open purchase).
#   purchase_load PORT COUNT LUA
purchase_load() {
  local port="$1" count="$2" lua="$3"
  for _ in $(seq 1 100); do curl -s -o /dev/null "http://127.0.0.1:$port/api/store" && break; sleep 0.05; done
  local ids=()
  for _ in $(seq 1 "$count"); do
    ids+=("$(curl -s -X POST -H 'Content-Type: application/json' -d '{"locale":"en","launch":true}' "http://127.0.0.1:$port/api/installs" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')")
  done
  { printf 'local ids = {'; printf '"%s",' "${ids[@]}"; printf '}\n'
    cat <<'LUA'
local next_index = 0
function setup(thread) next_index = next_index + 1; thread:set("id", ids[next_index]) end
function request()
  return wrk.format("POST", "/api/installs/" .. id .. "/purchases", {["Content-Type"] = "application/json"},
                    '{"productID":"com.example.tipjar.tip.coffee"}')
end
LUA
  } > "$lua"
}
