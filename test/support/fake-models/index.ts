export { step, type Step, type ScriptOptions } from './script.js';
export { FakeModelServer, type RecordedRequest } from './http-server.js';
export { FakeAnthropic, type AnthropicScriptOptions, type SeenToolResult } from './anthropic.js';
export { FakeOpenAIResponses } from './openai-responses.js';
export { FakeGemini } from './gemini.js';
export { claudeSession, codexSession, geminiSession, killAgents, cleanAgentEnv, type AgentRun, type AgentSession, type SessionOptions } from './launch.js';
export { holdPerTest, type Held } from './held.js';
