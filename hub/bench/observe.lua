-- wrk script: POST getforobserved bodies taken in turn from the file named by $NEARCAST_BODIES
-- (one JSON body per line), with the project's public key from $NEARCAST_API_KEY.
local bodies = {}
for line in io.lines(os.getenv("NEARCAST_BODIES")) do bodies[#bodies + 1] = line end
local key = os.getenv("NEARCAST_API_KEY")
local index = 0

request = function()
  index = index % #bodies + 1
  return wrk.format("POST", "/v1beta1/beaconinfo:getforobserved",
                    { ["Content-Type"] = "application/json", ["X-Api-Key"] = key }, bodies[index])
end
