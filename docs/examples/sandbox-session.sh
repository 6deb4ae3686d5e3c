# Source this from bash at the repository's root (". docs/examples/sandbox-session.sh") while the
# sandbox runs in test mode (bash .ci/sandbox --test-mode). Needs grpcurl and jq.
#
# It opens a session for the demo player demo-alice (brand demo-casino, EUR) and defines
#   bj METHOD JSON   one rgs.blackjack.v1.BlackjackService call with the session token. It sends
#                    JSON with two substitutions: a request_id gets this run's prefix ($RUN-), so
#                    the examples can be run again without replaying earlier answers, and a
#                    round_id of "$ROUND" becomes the round of the last answer. It prints the
#                    answer and sets ROUND from it.
# RGS (default 127.0.0.1:50051) is where the RGS listens.
RGS=${RGS:-127.0.0.1:50051}
RUN=$(date +%s%N)
ROUND=
TOKEN=$(grpcurl -plaintext -H 'authorization: Bearer rgs-dev-operator-key' \
  -d "{\"request_id\":\"session-$RUN\",\"brand_id\":\"demo-casino\",\"player_id\":\"demo-alice\"}" \
  "$RGS" rgs.operator.v1.OperatorService/CreateSession | jq -r .session_token)
bj() {
  local body out
  body=$(jq -c --arg run "$RUN" --arg round "$ROUND" \
    'if has("request_id") then .request_id = $run + "-" + .request_id else . end
     | if .round_id == "$ROUND" then .round_id = $round else . end' <<<"$2") || return
  out=$(grpcurl -plaintext -H "authorization: Bearer $TOKEN" -d "$body" \
    "$RGS" "rgs.blackjack.v1.BlackjackService/$1") || return
  printf '%s\n' "$out"
  ROUND=$(jq -r '.round.round_id // empty' <<<"$out")
}
