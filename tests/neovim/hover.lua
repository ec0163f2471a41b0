-- Headless Neovim check: start `whylens serve` with the built-in LSP client, open a file,
-- wait for the index to be ready (the server's whylens/indexStatus notification), request a
-- hover and write the result to $WHYLENS_OUT ("OK\n<markdown>" or "FAIL\n<why>").
-- Works with Neovim 0.7 (Debian): vim.lsp.start_client + buf_attach_client + request_sync.

local env = function(name)
  local value = os.getenv(name)
  assert(value and value ~= "", name .. " is not set")
  return value
end

local out_path = env("WHYLENS_OUT")
local function finish(ok, message)
  local handle = assert(io.open(out_path, "w"))
  handle:write((ok and "OK\n" or "FAIL\n") .. (message or ""))
  handle:close()
  vim.cmd(ok and "qall!" or "cquit! 1")
end

local states = {}
local client_id = vim.lsp.start_client({
  name = "whylens",
  cmd = { env("WHYLENS_PYTHON"), "-m", "whylens", "serve" },
  root_dir = env("WHYLENS_REPO"),
  init_options = { indexDirectory = env("WHYLENS_INDEX") },
  handlers = {
    ["whylens/indexStatus"] = function(_, result)
      table.insert(states, result.state)
    end,
  },
})
if not client_id then
  finish(false, "vim.lsp.start_client failed")
  return
end

vim.cmd("edit " .. vim.fn.fnameescape(env("WHYLENS_FILE")))
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)

local ready = vim.wait(90000, function()
  for _, state in ipairs(states) do
    if state == "idle" or state == "error" or state == "degraded" then
      return true
    end
  end
  return false
end, 20)
if not ready then
  finish(false, "the server never reported the end of indexing; states: " .. table.concat(states, ","))
  return
end

local client = vim.lsp.get_client_by_id(client_id)
local params = {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = tonumber(env("WHYLENS_LINE")), character = tonumber(env("WHYLENS_COL")) },
}
local response, err = client.request_sync("textDocument/hover", params, 30000, bufnr)
if not response then
  finish(false, "hover request failed: " .. tostring(err))
  return
end
if response.err then
  finish(false, "hover error: " .. vim.inspect(response.err))
  return
end
local result = response.result
if not result or not result.contents then
  finish(false, "null hover; states: " .. table.concat(states, ","))
  return
end
client.stop()
finish(true, result.contents.value or vim.inspect(result.contents))
