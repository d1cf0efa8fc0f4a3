"""LLM evaluators of GEC output (Kobayashi et al. 2024a, "Large Language Models Are
State-of-the-Art Evaluator for Grammatical Error Correction", BEA 2024).

* :mod:`.prompts` — the prompt templates of ``conf/llm/prompts`` (Appendix A), the essay context
  of a sentence, ERRANT edits marked inline for the edit-based prompt;
* :mod:`.parsing` — strict parsing of an answer against its JSON schema (1–5 integer per target);
* :mod:`.backends` — the chat-backend interface behind one disk cache of every prompt/response;
  :mod:`.local` — a local transformers causal LM (incl. GGUF files, structured output, batches);
  :mod:`.openai` — any OpenAI-compatible chat-completions endpoint (many requests in flight);
  :mod:`.vllm` — vLLM's offline engine;
* :mod:`.journal` — the per-answer journal that lets a killed run resume;
* :mod:`.serve` — a loopback OpenAI-compatible server for a local model (tests, shared runs).

The metrics themselves (``llm_s``, ``llm_e``) are in :mod:`gec_meta.metrics.llm`, ``llm_pe`` in
:mod:`gec_meta.metrics.llm_pe`.
"""
