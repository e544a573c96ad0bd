/* k12eval report: renders the embedded data with DOM APIs only (text nodes; no HTML string is ever parsed).
   Model output and question text are untrusted and are only ever inserted as text nodes. */
'use strict';
(function () {
  const DATA = JSON.parse(document.getElementById('report-data').textContent);
  // Verdicts are this report's own: pages opened from disk share one storage (issue #14, finding 13).
  const VERDICT_KEY = DATA.meta.identity ? 'k12eval.verdicts.v2.' + DATA.meta.identity : 'k12eval.verdicts.v1';
  const LANG_KEY = 'k12eval.lang';
  // `k12eval report --title` names the page (a class, a test); without it ('k12eval report', the option's
  // default) the page's own name in the reader's language.
  const GIVEN_TITLE = DATA.meta.title && DATA.meta.title !== 'k12eval report' ? DATA.meta.title : null;

  // ---------------------------------------------------------------- text
  const I18N = {
    zh: {
      title: '知识点诊断报告', overview: '总览', knowledge: '知识点', question: '题目', compare: '对比',
      verdicts: '教师标注', tables: '论文表格', other: 'English', run: '运行', runA: '运行 A', runB: '运行 B',
      accuracy: '正确率', micro: '正确率（微平均）', macro: '宏平均', interval: '95% 置信区间', n: '题数',
      questions: '题目数', askedOfBank: '作答题数 / 题库题数', unparsed: '未解析',
      invalidLeftOut: '题库中有误而跳过的记录（--skip-invalid，不计入任何数字）：{n} 条',
      invalidMore: '……另有 {k} 处问题见该运行的 summary.json（invalid_records）',
      invalidUnread: '；另有 {u} 个文件无法读取，其记录数未计',
      gaokaoRate: 'GAOKAO-Bench 得分率（论文口径，发布的评分脚本）：{e}/{p} 分，{q} 道小题', gaokaoOurs: 'k12eval 的答案抽取：{r}（{e}/{p} 分）',
      byRecord: '按记录正确率（一条记录含一道或多道小题，全对才算对）', records: '记录数', recordsOfBank: '作答记录数 / 题库记录数',
      recordsNote: 'GAOKAO-Bench 的运行（{runs}）在此按记录计数：一条记录含一道或多道小题（一篇英语完形填空 20 道），全部答对才算对；题数、n 与正确率都按记录计。论文的口径（按分值计的得分率）见总览卡片和论文表格。', unparsedRate: '未解析率', all: '全部', stage: '学段', type: '题型',
      difficulty: '难度', group: '文理', filter: '筛选…', showEmpty: '显示无数据的知识点', subject: '学科',
      level1: '一级知识点', level2: '二级知识点', name: '名称', heatmap: '各学科正确率', artsScience: '文科与理科',
      weakest: '最薄弱的知识点', weakestNote: '按 95% 置信区间上限从低到高排序：题目很少的知识点不会因偶然而排在前面。',
      runs: '参与比较的运行', scoredSteps: '有步骤评分的题目', stem: '题干', options: '选项', gold: '标准答案',
      analysis: '教师解析', answers: '模型作答', extracted: '提取的答案', verdict: '判定', right: '正确', wrong: '错误',
      skipped: '未评分', failed: '无输出', rawOutput: '原始输出', harnessPrompt: '模型实际收到的提示（来自其他评测工具的记录）', stepScores: '步骤得分', flags: '问题标记',
      source: '题目中最接近的句子', reference: '解析中最接近的步骤', contradiction: '最可能矛盾的题目句子',
      similarity: '相似度', probability: '概率', firstSuspect: '首个可疑步骤', suspectGuess: '可能出错的步骤（推测）',
      suspectGuessHelp: '没有哪一步被标记，但整个解答可疑：这是第一个有发现的步骤，否则是第一个计算步骤', markRight: '✓ 对', markWrong: '✗ 错',
      firstError: '首错在此', allRight: '全部步骤正确', clear: '清除', prev: '上一题', next: '下一题',
      none: '（无）', noAnswer: '这次运行没有回答这道题。', capped: '本页只收录部分题目的题干和作答（见概览中的说明）；这道题的作答在 questions.csv 中。', moreRows: '还有 {n} 行未显示；请用筛选缩小范围。', standIn: '未找到题库，无法显示题干和解析；请用 --data 指定题库。',
      paired: '同题配对', bothRight: '都对', onlyA: '仅 A 对', onlyB: '仅 B 对', bothWrong: '都错',
      disagree: 'A 与 B 得分不同的题目', contextFlags: '灰色标记', perStatementNote: '判断题按每个判断（小题）计分：正确率 = 判断对的小题数 ÷ 小题总数（CK12 发布的评分脚本）；题数是作答的题目数。把鼠标放在正确率上可见“对的 / 总数”。', byStatement: '逐个判断', statement: '第几个判断', modelSays: '模型的判断', notRead: '未读出', statementsRight: '{w} 个判断中对了 {r} 个', difference: '差值（B − A）', exportJsonl: '下载标注文件', labelled: '已标注的解答', exportBox: '标注文件的内容（每行一个已标注的解答）', viewsNav: '页面', pathNav: '所在位置', categories: '各类别正确率', microHelp: '这里所有作答过的题合在一起算的正确率（判断题按小题计）；方括号里是 95% 置信区间：题越少，区间越宽，真实水平大致在这个范围内。', macroHelp: '先算每个下一级知识点（或学科）的正确率，再简单平均：每个知识点分量相同，不论题多题少。', unparsedHelp: '模型的回答里读不出答案的题所占的比例；这些题算作答错。', nOf: '{n} 题', nRecordsOf: '{n} 条记录', columnAs: '论文和表格文件（CSV）里的列名：{name}', pairedOf: '同题配对（共 {n} 题）',
      findingsHelp: '标记来自规则检测器：计算错误、与解析或标准答案不符的数值、选择题中与答案相反的选项判断较常被找到；规则本身不懂化学、物理知识。在未参与拟合的真实中文解答上，规则只准确定位约四分之一的第一个错误步骤，学习组合器（评分时默认启用）不到一半；答案判对但推理有错的解答，只有约五分之一能找到错误步骤。以教师判断为准。',
      verdictHelp: '在“题目”页中逐步标注模型推理的对错。标注只保存在这台电脑的这个浏览器里（换浏览器或清除浏览数据就会丢失），请及时下载标注文件；评测人员可用 k12eval meta-eval --format chains 读取它，检验自动标记的准确度。',
      steps: '步骤', firstErrorCol: '首错步骤', complete: '完整', clearAll: '清除全部标注', tableSource: '出处',
      noData: '没有数据', warnings: '提示', generated: '生成时间', id: '编号', result: '结果', open: '打开',
      rank: '正确选项排名', scaled: '换算', scaledMark: '（换算）', rawValue: '原始值', greyedShort: '分不出对错', scores: '整体得分', unavailable: '无法计算', none2: '—', noSteps: '没有可显示的推理步骤。',
      arts: '文科', science: '理科', stepOf: '步', simSource: '贴合题目', simReference: '贴合解析', contradictionShort: '矛盾',
      variantSaw: '这次运行看到的选项', clickHint: '点击步骤查看匹配的句子；用 ✓ / ✗ 标注对错。',
      solutionFlags: '整体问题', suspicion: '可疑度', detectorsOff: '未运行的检测器',
      pFirstWrong: 'P(出错｜前面都对)', firstShare: '首错可能性', combinerSuspect: '首个可疑步骤（学习组合器）',
      combinerHelp: '每一步的“P(出错｜前面都对)”是学习组合器的估计：假如前面的步骤都对，这一步出第一个错的概率。它以“前面都对”为前提，所以几步可以同时接近 1.00；它不是“这一步就是首错”的概率。',
      combinerRuleWrong: '这份答案判错，解答里一定有错，所以圈出最可能是第一个错误的一步：每一步的“首错可能性”= 它的数字 × 前面每一步都对的可能（1 减去前面各步的数字），再换算成百分比；圈出的是百分比最大的一步，靠前而数字高的步骤占先。',
      combinerRuleOther: '这份答案判对或未判分，所以圈出第一个达到 {threshold} 的步骤；没有步骤达到就不圈。',
      combinerRuleCalled: '这份答案判对或未判分：有步骤达到 {threshold} 时判为推理有错，并像判错的答案一样圈出最可能是第一个错误的一步：每一步的“首错可能性”= 它的数字 × 前面每一步都对的可能（1 减去前面各步的数字），再换算成百分比，圈出百分比最大的一步；没有步骤达到就不圈。',
      combinerAbout: '组合器：{name}；拟合所用数据：{training}。它只在这些数据上学过，换一类题目或模型时数字可能偏高或偏低，以教师判断为准。',
      unknownTraining: '未知（组合器文件已不在原处或已改变）',
      partial: '部分得分', value_repeat_similarity: '与前面最像的步骤的相似度', value_earlier_contradiction: '与前面步骤矛盾的概率',
      mathError: '公式无法排版，按原文显示',
      mathDefines: '未排版：公式中定义了宏（\\def、\\newcommand、\\let 等），按原文显示', mathDeep: '未排版：嵌套超过 {depth} 层，按原文显示',
      mathSlow: '未排版：这一页的公式太多，无法及时排版，按原文显示', mathLarge: '未排版：公式排版后过大，按原文显示',
      viewCut: '（这一页的公式、加粗和表格太多，以下未排版，按原文显示）',
    },
    en: {
      title: 'Knowledge-point audit report', overview: 'Overview', knowledge: 'Knowledge points', question: 'Question',
      compare: 'Compare', verdicts: 'Teacher verdicts', tables: 'Paper tables', other: '中文', run: 'Run', runA: 'Run A',
      runB: 'Run B', accuracy: 'Accuracy', micro: 'Accuracy (micro)', macro: 'Macro', interval: '95% interval',
      n: 'n', questions: 'Questions', askedOfBank: 'asked / in bank', unparsed: 'Unparsed',
      invalidLeftOut: 'Invalid bank records left out (--skip-invalid, in no count): {n}',
      invalidMore: "... {k} more problem(s) named in the run's summary.json (invalid_records)",
      invalidUnread: '; and {u} file(s) whose records could not be counted',
      gaokaoRate: "GAOKAO-Bench scoring rate (the paper's unit, the release's scorer): {e}/{p} points, {q} questions", gaokaoOurs: "k12eval's extraction: {r} ({e}/{p} points)",
      byRecord: 'Accuracy by record (a record holds one or more questions, right when all are)', records: 'records', recordsOfBank: 'records asked / in bank',
      recordsNote: "GAOKAO-Bench runs ({runs}) count records here: a record holds one or more questions (an English cloze 20) and is right when all are; n, counts and accuracies are of records. The paper's unit, the scoring rate in points, is on the overview's card and in the paper tables.", unparsedRate: 'Unparsed rate', all: 'All', stage: 'Stage',
      type: 'Type', difficulty: 'Difficulty', group: 'Group', filter: 'Filter…', showEmpty: 'Show points without data',
      subject: 'Subject', level1: 'Level-1 point', level2: 'Level-2 point', name: 'Name',
      heatmap: 'Accuracy by subject', artsScience: 'Arts vs science', weakest: 'Weakest knowledge points',
      weakestNote: 'Ranked by the upper end of the 95% interval, so points with few questions do not rank low by chance.',
      runs: 'Runs', scoredSteps: 'Questions with step scores', stem: 'Question', options: 'Options', gold: 'Gold answer',
      analysis: "Teacher's analysis", answers: 'Model answers', extracted: 'Extracted answer', verdict: 'Verdict',
      right: 'right', wrong: 'wrong', skipped: 'not scored', failed: 'no output', rawOutput: 'Raw output', harnessPrompt: 'The prompt the model was given (from the other harness\'s file)',
      stepScores: 'Step scores', flags: 'Flags', source: 'Closest sentence of the question',
      reference: 'Closest step of the analysis', contradiction: 'Most contradicted sentence of the question',
      similarity: 'similarity', probability: 'probability', firstSuspect: 'first suspect step', suspectGuess: 'likely first error (guess)',
      suspectGuessHelp: 'No step is flagged but the solution is suspect: the first step with a finding, else the first calculation', markRight: '✓ right',
      markWrong: '✗ wrong', firstError: 'first error here', allRight: 'all steps right', clear: 'clear', prev: 'Previous',
      next: 'Next', none: '(none)', noAnswer: 'This run did not answer this question.',
      capped: 'This page carries the texts and answers of part of the questions (see the note on the overview); this question\'s answers are in questions.csv.', moreRows: '{n} more rows not shown; filter to narrow them down.',
      standIn: 'Question bank not found: stem and analysis cannot be shown; pass --data to the report command.',
      paired: 'Paired on the same questions', bothRight: 'both right', onlyA: 'only A right', onlyB: 'only B right',
      bothWrong: 'both wrong', disagree: 'Questions A and B score differently', contextFlags: 'grey flags', perStatementNote: "A judgment question counts per statement: accuracy = statements right / statements (CK12's released scorer); n counts the questions answered. Hover an accuracy for right / total.", byStatement: 'Statement by statement', statement: 'statement', modelSays: 'model says', notRead: 'not read', statementsRight: '{r} of {w} statements right', difference: 'difference (B − A)',
      exportJsonl: 'Download JSONL', labelled: 'Labelled solutions', exportBox: 'JSONL', viewsNav: 'views', pathNav: 'breadcrumb', categories: 'Categories', microHelp: 'Accuracy over every answered question here (a judgment by its statements); in brackets the 95% interval: the fewer the questions, the wider it is.', macroHelp: 'The plain mean of the accuracies one level down (points or subjects): each counts the same however many questions it has.', unparsedHelp: 'Share of answers from which no answer could be read; they count as wrong.', nOf: 'n={n}', nRecordsOf: '{n} records', columnAs: '{name}', pairedOf: 'Paired on the same questions (n = {n})',
      findingsHelp: "Flags come from rule detectors: calculation slips, values that differ from the analysis or the gold answer, and option verdicts against the answer are found most often; the rules know no chemistry or physics. On real Chinese answers no rule was fitted on, the rules place the first wrong step exactly about one time in four, the learned combiner (on by default in scoring) a little under one time in two; in answers graded right whose reasoning is wrong it finds the wrong step about one time in five. The teacher's judgement decides.",
      verdictHelp: "Mark the steps of a model's reasoning right or wrong on the Question page. Marks stay in this browser (localStorage); the JSONL download is read by k12eval meta-eval --format chains.",
      steps: 'Steps', firstErrorCol: 'First error', complete: 'Complete', clearAll: 'Clear all verdicts', tableSource: 'Source',
      noData: 'No data', warnings: 'Notes', generated: 'Generated', id: 'Id', result: 'Result', open: 'Open',
      rank: 'Rank of the gold option', scaled: 'scaled', scaledMark: ' (scaled)', rawValue: 'raw value', greyedShort: 'does not tell right from wrong', scores: 'Solution scores', unavailable: 'Not computed', none2: '—',
      noSteps: 'No reasoning steps to show.', arts: 'arts', science: 'science', stepOf: 'step', simSource: 'vs question',
      simReference: 'vs analysis', contradictionShort: 'contradiction', variantSaw: 'Options as this run saw them',
      clickHint: 'Click a step to see the sentences it matched; mark it with ✓ / ✗.',
      solutionFlags: 'Solution flags', suspicion: 'suspicion', detectorsOff: 'Detectors not run',
      pFirstWrong: 'P(wrong | earlier right)', firstShare: 'chance it is the first error', combinerSuspect: 'first suspect step (learned combiner)',
      combinerHelp: "Each step's \"P(wrong | earlier right)\" is the learned combiner's estimate of how likely this step holds the first error if every step before it is right. It assumes the earlier steps right, so several steps can all be near 1.00; it is not the chance that this step is the first error.",
      combinerRuleWrong: "This answer is graded wrong, so the solution has an error somewhere, and the step outlined is the likeliest first error: each step's \"chance it is the first error\" is its number times the chance that every earlier step is right (1 minus each earlier step's number), as a share of all steps; the step with the largest share is outlined, so an early step with a high number comes first.",
      combinerRuleOther: 'This answer is graded right or not graded, so the first step at or above {threshold} is outlined; none when no step reaches it.',
      combinerRuleCalled: 'This answer is graded right or not graded: when a step reaches {threshold} its reasoning is called wrong and, as for an answer graded wrong, the likeliest first error is outlined (the step with the largest "chance it is the first error": its number times the chance that every earlier step is right, as a share of all steps); none when no step reaches it.',
      combinerAbout: "Combiner: {name}; fitted on: {training}. It learned from those data only: on other questions or models its numbers may run high or low, and the teacher's judgement decides.",
      unknownTraining: 'not known (the combiner file has moved or changed)',
      partial: 'partial credit', value_repeat_similarity: 'similarity to the closest earlier step', value_earlier_contradiction: 'contradiction of an earlier step',
      mathError: 'not typeset, shown as written',
      mathDefines: 'not typeset: the formula defines a macro (\\def, \\newcommand, \\let...); shown as written', mathDeep: 'not typeset: nested more than {depth} deep; shown as written',
      mathSlow: 'not typeset: this view has more math than can be drawn in time; shown as written', mathLarge: 'not typeset: the formula draws too large; shown as written',
      viewCut: ' (this view has too many formulas, bold runs and table cells: the rest is shown as written)',
    },
  };
  const VALUES = {
    zh: {
      single_choice: '单选', multiple_choice: '多选', judgment: '判断', fill_in_blank: '填空', sorting: '排序', cloze: '完形填空',
      primary: '小学', middle: '初中', high: '高中', arts: '文科', science: '理科', original: '原题', shuffled: '打乱选项', distractors: '加干扰项',
      ok: '已解析', unparsed: '未解析', failed: '无输出', skipped: '未评分', overall: '总体', 'asked / in bank': '作答题数 / 题库题数',
      'zero-shot': '零样本', 'few-shot': '少样本', 'zero-shot-cot': '零样本思维链', 'few-shot-cot': '少样本思维链',
      illogical: '答非所问', problem_solving: '解题错误', gibberish: '乱码或空白',
      // CMMLU's categories (a run's groups on a CMMLU bank), as its paper's Chinese names them
      STEM: '理工（STEM）', Humanities: '人文学科', 'Social Science': '社会科学', Other: '其他', 'China specific': '中国特定主题',
    },
    en: {
      single_choice: 'single choice', multiple_choice: 'multiple choice', judgment: 'true/false', fill_in_blank: 'fill in',
      sorting: 'sorting', cloze: 'cloze', primary: 'primary', middle: 'junior high', high: 'senior high', arts: 'arts',
      science: 'science', original: 'original', shuffled: 'shuffled options', distractors: 'added distractors', ok: 'parsed', unparsed: 'unparsed', failed: 'no output', skipped: 'not scored',
      problem_solving: 'problem solving',
    },
  };
  // Flag and finding names, the severity that marks a step and the Chinese lines of 'not computed'
  // reasons come with the data (reports.payload.labels), from where Python defines them.
  const LABELS = DATA.labels || { flags: {}, findings: {}, suspect_at: 0.5, reasons: {} };
  const SUSPECT_AT = LABELS.suspect_at;

  const state = {
    lang: localStorage.getItem(LANG_KEY) === 'en' ? 'en' : 'zh',
    run: DATA.runs.length ? DATA.runs[0].id : null,
    runB: DATA.runs.length > 1 ? DATA.runs[1].id : '',
    filters: { stage: '', type: '', difficulty: '', group: '' },
    showEmpty: false,
    open: {},
  };
  const t = (key) => I18N[state.lang][key] || key;
  const v = (value) => (value == null ? '—' : VALUES[state.lang][value] || String(value));
  const named = (table, key) => (table[key] ? table[key][state.lang === 'zh' ? 0 : 1] : String(key));
  const flagName = (f) => named(LABELS.flags, f);
  const findingName = (k) => named(LABELS.findings, k);
  // A finding's line in the page's language: a detector's Chinese line, else (older score files) the
  // expression it quotes; the kind's name is beside it either way.
  const findingText = (f) => (state.lang === 'zh' ? (f.zh != null ? f.zh : f.evidence || '') : f.message);
  const reasonText = (why) => (LABELS.reasons[why] && LABELS.reasons[why][state.lang]) || (LABELS.reasons[why] || {}).en || why;
  const metricLabel = (k) => { const m = DATA.metrics.find((x) => x.key === k) || (LABELS.metrics || {})[k]; return m ? metricName(m) : k; };
  const colon = () => (state.lang === 'zh' ? '：' : ': ');
  const listSep = () => (state.lang === 'zh' ? '；' : '; ');
  const detectorName = (k) => named(LABELS.detectors || {}, k);
  // A step flagged by a detector, or (rule 'fallback') a guess: the solution is suspect, no step is.
  const suspectChip = (rule) => (rule === 'fallback'
    ? el('span', { class: 'chip warn', title: t('suspectGuessHelp') }, '? ' + t('suspectGuess'))
    : el('span', { class: 'chip bad' }, '⚠ ' + t('firstSuspect')));
  // With a learned combiner (comb = the answer's `combined`) a step's flags show its probability of being the
  // first wrong step against the combiner's threshold; without one, the detector's own severity.
  const findingClass = (f, step, comb) => {
    const p = comb && step && step.p != null ? step.p : null;
    if (p != null) return p >= comb.threshold ? 'bad' : 'warn';
    return f.severity != null && f.severity >= SUSPECT_AT ? 'bad' : 'warn';
  };
  // A kind of flag that fired no more on wrong steps than on right ones of labelled answers (the run's
  // `evidence`, measured by k12eval meta-eval --flag-rates) is context, not a warning: grey, said why.
  const contextKind = (run, kind) => { const ev = ((run || {}).evidence || {})[kind]; return ev && ev.warns === false ? ev : null; };
  function findingList(findings, step, comb, run) {
    const cls = (f) => (contextKind(run, f.kind) ? 'ctx' : findingClass(f, step, comb));
    const why = (f) => { const ev = contextKind(run, f.kind); return ev ? ev[state.lang] + '\n' + ev[state.lang + '_detail'] : null; };
    return el('ul', { class: 'findings' }, findings.map((f) => el('li', { class: 'finding ' + cls(f), 'data-kind': f.kind },
      el('span', { class: 'chip ' + cls(f), title: why(f) }, findingName(f.kind)), ' ', el('span', { class: 'msg' }, findingText(f)))));
  }
  // Untrusted text (a combiner's path, its data's names) goes into a text node like any other.
  const fillIn = (template, values) => template.replace(/\{(\w+)\}/g, (m, k) => (k in values ? values[k] : m));
  function combinerHelp(run, comb) {
    const info = run.combiner || {};
    const training = info.training ? info.training.join(', ') : t('unknownTraining');
    const values = { name: info.name || '?', training: training, threshold: fmt(comb.threshold, 2) };
    const rule = comb.graded_wrong ? t('combinerRuleWrong') : t(comb.locate === 'likeliest' ? 'combinerRuleCalled' : 'combinerRuleOther');
    return [t('combinerHelp'), rule, t('combinerAbout')].map((x) => fillIn(x, values)).join(state.lang === 'zh' ? '' : ' ');
  }
  // A graded-wrong answer's steps: each one's chance of being the first error, p_k · Π_{j<k}(1 − p_j),
  // as a share of the whole (the combiner outlines the largest: reasoning_metrics.combine.model).
  function firstErrorShares(steps) {
    if (!steps.length || steps.some((s) => s.p == null)) return null;
    let right = 1;
    const chance = steps.map((s) => { const x = s.p * right; right *= 1 - s.p; return x; });
    const total = chance.reduce((x, y) => x + y, 0);
    return total > 0 ? chance.map((x) => x / total) : null;
  }
  const runById = Object.fromEntries(DATA.runs.map((r) => [r.id, r]));
  // A run as people read it, in the page's language: model · mode · variant (the model's name as written).
  // A run is named by its model's name (a replay's model, not the path of the file it played back: run.name),
  // unless two runs would read alike; the path stays on hover (runTitle).
  const sameName = (run) => [run.name || run.model, run.mode, run.variant].join('\n');
  const nameCounts = DATA.runs.reduce((n, run) => n.set(sameName(run), (n.get(sameName(run)) || 0) + 1), new Map());
  const modelName = (run) => (run.name && nameCounts.get(sameName(run)) === 1 ? run.name : run.model);
  const runLabel = (run) => [modelName(run), v(run.mode), v(run.variant)].join(' · ');
  const runTitle = (run) => (modelName(run) !== run.model ? run.model : null);
  const metricName = (m) => m[state.lang];

  // ---------------------------------------------------------------- DOM helpers
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value == null || value === false) continue;
      if (key === 'on') {
        for (const [event, fn] of Object.entries(value)) node.addEventListener(event, fn);
      } else if (key === 'class') {
        node.className = value;
      } else if (key.startsWith('on') || key === 'style' || key === 'srcdoc') {
        throw new Error('refusing attribute ' + key);
      } else {
        node.setAttribute(key, value === true ? '' : String(value));
      }
    }
    for (const child of children.flat()) {
      if (child == null || child === false) continue;
      node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }
  const shown = (item) => (item == null ? '' : item.d != null ? item.d : item.t);
  // ---------------------------------------------------------------- math (KaTeX)
  // Bank and model text is untrusted. KaTeX builds DOM nodes (never an HTML string); trust is
  // off (no \href, \url, \includegraphics, \html...), sizes and macro expansion are bounded, and a
  // formula that does not parse stays text. KaTeX throws rather than drawing its own error
  // (that one carries a style attribute, which the page's CSP refuses), and we show the source.
  const MATH_OPTIONS = { throwOnError: true, trust: false, strict: 'ignore', maxSize: 20, maxExpand: 300, output: 'htmlAndMathml' };
  const MATH_MAX = 2000;  // longer "formulas" are most likely stray dollars: left as text
  // Commands that link, load or tag: KaTeX would show only their name in red (trust is off); the
  // whole formula as text tells the teacher what the model wrote.
  const MATH_REFUSED = /\\(?:href|url|includegraphics|html[A-Za-z]*)(?![A-Za-z])/;
  // What can hang or crash the tab (issue #28 item 4), refused before KaTeX sees it; the formula
  // shows as its text. Macro definitions: a 2,000-character \def expansion rendered 25 MB of HTML
  // within maxExpand. Deep nesting: \sqrt{ 160 deep crashed the tab. Size: a formula drawn into
  // more than MATH_NODES elements is replaced by its text. Time: once a view has spent
  // MATH_BUDGET_MS typesetting, its remaining formulas show as text (3,000 $x$ took 12 s).
  const MATH_DEFINES = /\\(?:def|gdef|edef|xdef|global|let|futurelet|newcommand|renewcommand|providecommand|DeclareMathOperator|newenvironment|renewenvironment|csname|expandafter|noexpand)(?![A-Za-z])/;
  const MATH_DEPTH = 24;
  const MATH_NODES = 6000;
  const MATH_BUDGET_MS = 1500;
  const MATH_VIEW_NODES = 15000;  // and at most this many elements of typeset math a view
  // Formulas and bold runs a view draws at most, typeset or not: past them, the rest of each text shows as
  // written in one piece, with a note (`**a**$` repeated drew 150,000 elements and took 1.8 s, #32 item 4).
  const VIEW_PIECES = 1000;
  // CK12 table cells a view draws at most (three elements each): past them, the rest of the text as written
  // (a table of 50,000 empty cells drew 150,000 elements, 300,000 at 100,000; #32, fresh round).
  const VIEW_CELLS = 3000;
  const mathClock = { until: Infinity, nodes: 0, pieces: 0, cells: 0, cut: 0 };
  const spent = () => mathClock.pieces >= VIEW_PIECES || performance.now() > mathClock.until || mathClock.nodes > MATH_VIEW_NODES;
  const asWritten = (text) => { mathClock.cut += 1; return [text, el('span', { class: 'cut-short' }, t('viewCut'))]; };
  function mathDepth(tex) {
    let depth = 0, deepest = 0, brackets = 0;
    for (const m of tex.matchAll(/\\left(?![A-Za-z])|\\right(?![A-Za-z])|\\begin(?![A-Za-z])|\\end(?![A-Za-z])|\\sqrt\s*\[|\\[{}[\]]|[{}\]]/g)) {
      const token = m[0];
      if (token === '{' || token === '\\left' || token === '\\begin') depth += 1;
      else if (token === '}' || token === '\\right' || token === '\\end') depth = Math.max(0, depth - 1);
      else if (token.startsWith('\\sqrt')) { depth += 1; brackets += 1; }
      else if (token === ']' && brackets > 0) { depth = Math.max(0, depth - 1); brackets -= 1; }
      deepest = Math.max(deepest, depth);
    }
    return deepest;
  }
  function mathRefusal(tex) {
    if (MATH_DEFINES.test(tex)) return t('mathDefines');
    if (mathDepth(tex) > MATH_DEPTH) return fillIn(t('mathDeep'), { depth: MATH_DEPTH });
    return null;
  }
  // The formulas of a text, left to right: `$$...$$`, `\[...\]`, `\(...\)`, and `$...$` on one line
  // (`\$` inside is a dollar), as the regex
  //   /\$\$([\s\S]+?)\$\$|\\\[([\s\S]+?)\\\]|\\\(([\s\S]+?)\\\)|\$((?:\\\$|[^$\n])+?)\$/g
  // matches them, in linear time: that regex searched to the end of the text from every unclosed `\[`
  // (`\[` 50,000 times froze the tab for 37 s, issue #32 item 4). A search for a closer remembers what it
  // found, so no part of the text is searched twice for the same closer.
  function mathMatches(text) {
    const found = [];
    const searched = new Map();  // closer -> [from, found at or -1]
    const closer = (mark, from) => {
      const last = searched.get(mark);
      if (last && from >= last[0] && (last[1] === -1 || last[1] >= from)) return last[1];
      const at = text.indexOf(mark, from);
      searched.set(mark, [from, at]);
      return at;
    };
    for (let p = 0; p < text.length; p += 1) {
      const c = text[p];
      let end = -1, group = 0;
      if (c === '$' && text[p + 1] === '$') {
        const q = closer('$$', p + 3);
        if (q >= 0) { end = q + 2; group = 1; }
      } else if (c === '\\' && (text[p + 1] === '[' || text[p + 1] === '(')) {
        group = text[p + 1] === '[' ? 2 : 3;
        const q = closer(group === 2 ? '\\]' : '\\)', p + 3);
        end = q >= 0 ? q + 2 : -1;
      }
      if (end < 0 && c === '$') {
        const q = inlineClose(text, p + 1);
        if (q >= 0) { end = q + 1; group = 4; }
      }
      if (end < 0) continue;
      found.push({ index: p, raw: text.slice(p, end), tex: text.slice(p + (group === 4 ? 1 : 2), end - (group === 4 ? 1 : 2)), group });
      p = end - 1;
    }
    return found;
  }
  // Where the `$...$` whose opening dollar is just before `start` closes, or -1: the first dollar of
  // the line after one character or more; `\$` is a dollar inside, unless nothing closes after it,
  // when the last one closes (as the regex's backtracking gives).
  function inlineClose(text, start) {
    let lastEscape = -1;
    for (let i = start; ; ) {
      const c = text[i];
      if (i > start && c === '$') return i;
      if (c === '\\' && text[i + 1] === '$') { lastEscape = i; i += 2; }
      else if (c !== undefined && c !== '$' && c !== '\n') i += 1;
      else return lastEscape >= 0 ? lastEscape + 1 : -1;
    }
  }
  function mathPieces(text) {
    const pieces = [];
    let last = 0;
    for (const m of mathMatches(text)) {
      const tex = m.tex;
      if (tex.length > MATH_MAX || !tex.trim() || MATH_REFUSED.test(tex)) continue;
      if (m.index > last) pieces.push({ text: text.slice(last, m.index) });
      // CK12 writes inline formulas as $$...$$ (`$$-2017$$的倒数是`): display only \[...\] or a $$ block alone.
      const display = m.group === 2 || (m.group === 1 && text.trim() === m.raw);
      pieces.push({ tex, display, raw: m.raw });
      last = m.index + m.raw.length;
    }
    if (last < text.length) pieces.push({ text: text.slice(last) });
    return pieces;
  }
  function mathNode(piece) {
    const span = el('span', { class: piece.display ? 'math display' : 'math' });
    const fallback = (why) => {
      span.replaceChildren();
      span.className = 'math-error';
      span.title = why;
      span.textContent = piece.raw;
      return span;
    };
    const refusal = mathRefusal(piece.tex);
    if (refusal) return fallback(refusal);
    if (performance.now() > mathClock.until || mathClock.nodes > MATH_VIEW_NODES) return fallback(t('mathSlow'));
    try {
      window.katex.render(blanks(piece.tex), span, Object.assign({}, MATH_OPTIONS, { displayMode: piece.display }));
    } catch (error) {
      return fallback(state.lang === 'zh' ? t('mathError') : t('mathError') + ': ' + String(error && error.message || error));
    }
    const drawn = span.getElementsByTagName('*').length;
    if (drawn > MATH_NODES) return fallback(t('mathLarge'));
    mathClock.nodes += drawn;
    return span;
  }
  // A blank of a fill-in or sorting stem: CK12 writes `$$\underline{}$$`, which KaTeX draws 0 px wide.
  const blanks = (tex) => tex.replace(/\\underline\s*\{(?:\s|\\[ ,;:!])*\}/g, '\\underline{\\qquad\\qquad}');
  // Markdown emphasis of model steps (`**答案**`) in bold: the words stay text nodes.
  function emphasis(text) {
    const parts = text.split(/\*\*([^*\n]+?)\*\*/);
    if (parts.length === 1) return text;
    const out = [];
    for (let i = 0; i < parts.length; i += 1) {
      if (i % 2 && spent()) return out.concat(asWritten(parts.slice(i).map((p, j) => ((i + j) % 2 ? '**' + p + '**' : p)).join('')));
      if (i % 2) mathClock.pieces += 1;
      if (parts[i] !== '') out.push(i % 2 ? el('strong', null, parts[i]) : parts[i]);
    }
    return out;
  }
  // Text with its formulas typeset: `item` is {t, d} from the payload (d: LaTeX simplified to text) or a string.
  // `inline`: a formula alone stays on the line (an option beside its letter, an answer).
  // CK12 writes tables in stems as `$#table{|$$\centerline{cell}centerlineendflag|...||...|}#$`: rows end
  // at `||` or `|` + newline + `|`; drawn as a table, each cell's text typeset.
  // The tables of a text, as /\$?#table\{([\s\S]*?)\}#\$?/g finds them, in linear time: that regex searched to
  // the end of the text from every unclosed `#table{`; once no `}#` follows, none follows a later one either.
  function ck12Tables(raw) {
    const found = [];
    for (let from = 0; ;) {
      const k = raw.indexOf('#table{', from);
      const q = k < 0 ? -1 : raw.indexOf('}#', k + 7);
      if (q < 0) return found;
      const start = k > from && raw[k - 1] === '$' ? k - 1 : k;
      from = raw[q + 2] === '$' ? q + 3 : q + 2;
      found.push({ index: start, raw: raw.slice(start, from), body: raw.slice(k + 7, q) });
    }
  }
  // A cell's `$$\centerline{text}centerlineendflag$$`: its text, else null. With string steps: the regex
  // /^\s*\$*\s*\\centerline\{([\s\S]*)\}\s*centerlineendflag\s*\$*\s*$/ backtracked over every space of a long cell.
  const HEAD = '\\centerline{', TAIL = 'centerlineendflag';
  const trimDollars = (text, end) => {
    let i = end ? text.length : 0;
    while (end ? i > 0 && text[i - 1] === '$' : text[i] === '$') i += end ? -1 : 1;
    return end ? text.slice(0, i) : text.slice(i);
  };
  function centerline(cell) {
    const head = trimDollars(cell.trimStart(), false).trimStart();
    if (!head.startsWith(HEAD)) return null;
    const body = trimDollars(head.trimEnd(), true).trimEnd();
    if (!body.endsWith(TAIL)) return null;
    const inner = body.slice(0, -TAIL.length).trimEnd();
    return inner.endsWith('}') && inner.length > HEAD.length ? inner.slice(HEAD.length, -1) : null;
  }
  // The table, or null when its cells would take the view past VIEW_CELLS.
  function ck12Table(body) {
    const rows = body.trim().replace(/^\|/, '').replace(/\|$/, '').split(/\|\s*\|/).map((row) => row.split('|'));
    const cells = rows.reduce((n, row) => n + row.length, 0);
    if (mathClock.cells + cells > VIEW_CELLS) return null;
    mathClock.cells += cells;
    const cell = (c) => {
      const inner = centerline(c);
      const text = inner != null ? inner : c.replace(/\$+/g, '').trim();
      return /[\\^_]/.test(text) ? rich('$' + text + '$', true) : emphasis(text);
    };
    return el('div', { class: 'tablewrap ck12-table' }, el('table', { class: 'data' },
      el('tbody', null, rows.map((row, i) => el('tr', null, row.map((c) => el(i ? 'td' : 'th', null, cell(c))))))));
  }
  function rich(item, inline) {
    const raw = item == null ? '' : typeof item === 'string' ? item : item.t;
    const plain = typeof item === 'string' ? item : shown(item);
    const tables = typeof raw === 'string' && raw.includes('#table{') ? ck12Tables(raw) : [];
    if (tables.length) {
      const parts = [];
      let last = 0;
      for (const m of tables) {
        if (m.index > last) parts.push(rich(raw.slice(last, m.index), inline));
        const table = ck12Table(m.body);
        if (table === null) { parts.push(...asWritten(raw.slice(m.index))); last = raw.length; break; }
        parts.push(table);
        last = m.index + m.raw.length;
      }
      if (last < raw.length) parts.push(rich(raw.slice(last), inline));
      return el('span', { class: 'rich' }, parts);
    }
    if (!window.katex || typeof raw !== 'string' || !/[$\\]/.test(raw)) return emphasis(plain);
    // Bold around math (`**设速度为 $x$ 米**`): split at the emphasis first, outside any formula.
    // Dollars before each match counted once as the matches go (counting from the start for each was
    // quadratic: `**a**$` repeated froze the tab for 35 s, #32 item 4).
    const evenDollars = (text) => text.split('$').length % 2 === 1;
    let counted = 0, odd = false;
    const outsideMath = (m) => {
      for (; counted < m.index; counted += 1) if (raw[counted] === '$') odd = !odd;
      return !odd;
    };
    const bold = [...raw.matchAll(/\*\*([^*\n]+?)\*\*/g)].filter((m) => outsideMath(m) && evenDollars(m[1]));
    if (bold.length) {
      const parts = [];
      let last = 0;
      for (const m of bold) {  // cut short once (VIEW_PIECES): the rest of `raw` as written
        const cut = mathClock.cut;
        if (m.index > last) parts.push(...typed(raw.slice(last, m.index), inline, raw.slice(m.index)));
        if (mathClock.cut === cut && spent()) parts.push(...asWritten(raw.slice(m.index)));
        if (mathClock.cut !== cut) { last = raw.length; break; }
        mathClock.pieces += 1;
        parts.push(el('strong', null, typed(m[1], inline, '**' + raw.slice(m.index + m[0].length))));
        last = mathClock.cut === cut ? m.index + m[0].length : raw.length;
        if (last === raw.length) break;
      }
      if (last < raw.length) parts.push(...typed(raw.slice(last), inline));
      return el('span', { class: 'rich' }, parts);
    }
    const pieces = mathPieces(raw);
    if (!pieces.some((p) => p.tex != null)) return emphasis(plain);
    return el('span', { class: 'rich' }, typed(raw, inline));
  }
  // Text with its formulas typeset (no emphasis): the pieces as nodes and strings.
  // Past the view's VIEW_PIECES, the rest of the text as written (one piece, not a fallback per formula),
  // followed by `after` (the rest of a text `text` is part of).
  function typed(text, inline, after = '') {
    const pieces = mathPieces(text);
    const out = [];
    for (let i = 0; i < pieces.length; i += 1) {
      const p = pieces[i];
      if (p.tex == null) out.push(p.text);
      else if (spent()) return out.concat(asWritten(pieces.slice(i).map((q) => (q.tex != null ? q.raw : q.text)).join('') + after));
      else { mathClock.pieces += 1; out.push(mathNode(inline ? Object.assign(p, { display: false }) : p)); }
    }
    return out;
  }
  // An extracted or gold answer: each part typeset, bare LaTeX (`\frac{1}{2}`) too.
  function answerRich(value) {
    if (value == null) return '—';
    if (!Array.isArray(value) || value.some((x) => typeof x !== 'string') || value.every((x) => x.length <= 1)) return rich(answerText(value), true);
    const parts = value.map((x) => (/[$]|\\[([]/.test(x) || !/\\[A-Za-z]|[_^]\{/.test(x) ? rich(x, true) : rich('$' + x + '$', true)));
    return parts.flatMap((part, i) => (i ? ['; ', part] : [part]));
  }
  const pct = (x, digits = 1) => (x == null || Number.isNaN(x) ? '—' : (100 * x).toFixed(digits) + '%');
  const fmt = (x, digits = 3) => (x == null || Number.isNaN(x) ? '—' : Number(x).toFixed(digits));
  const link = (hash, ...children) => el('a', { href: '#' + hash }, ...children);
  const nodeHash = (id) => 'node/' + encodeURIComponent(id);
  // A question's address is its id, not its place on this page: a report rebuilt with another run (whose
  // questions shift the order) still opens the question a saved or shared link names.
  // A question listed under a point other than its own (a Xiezhi question labelled in two 门类) names that
  // point too (`q/<id>/in/<point>`): its crumbs and pager stay in the list the teacher came from.
  const qHash = (i, point) => 'q/' + encodeURIComponent(Q[i].id) + (point && point !== Q[i].node ? '/in/' + encodeURIComponent(point) : '');

  function wilson(k, n) {
    if (!n) return [NaN, NaN];
    const z = 1.959963984540054, z2 = z * z, p = k / n, d = 1 + z2 / n;
    const c = (p + z2 / (2 * n)) / d, h = (z / d) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
    return [Math.max(0, c - h), Math.min(1, c + h)];
  }
  function colour(acc) {
    if (acc == null || Number.isNaN(acc)) return '#eef0f2';
    return 'hsl(' + Math.round(120 * acc) + ', 62%, ' + Math.round(88 - 18 * Math.abs(acc - 0.5)) + '%)';
  }
  // right/n: the scored units behind the accuracy (a judgment counted per statement scores its statements).
  function accCell(acc, lo, hi, n, right) {
    // From the counts when known: the payload keeps 4 decimals, and 1/26 (3.846 %) kept as 0.0385 showed 3.9 %.
    if (right != null && n) [acc, lo, hi] = [Math.round(right) / n, ...wilson(Math.round(right), n)];
    const fill = el('div', { class: 'fill' });
    fill.style.width = acc == null || Number.isNaN(acc) ? '0' : (100 * acc).toFixed(1) + '%';
    fill.style.background = acc == null || Number.isNaN(acc) ? 'transparent' : 'hsl(' + Math.round(120 * acc) + ', 55%, 50%)';
    const ci = el('div', { class: 'ci' });
    if (lo != null && !Number.isNaN(lo)) {
      ci.style.left = (100 * lo).toFixed(1) + '%';
      ci.style.width = (100 * (hi - lo)).toFixed(1) + '%';
    }
    const range = lo == null || Number.isNaN(lo) ? '' : '[' + (100 * lo).toFixed(0) + '–' + (100 * hi).toFixed(0) + ']';
    const count = right != null && n != null ? Math.round(right) + '/' + n : n != null ? 'n = ' + n : null;
    return el('div', { class: 'acc', title: count != null ? count + '  ' + t('interval') + ' ' + range : null },
      el('div', { class: 'bar' }, fill, ci), el('span', { class: 'txt' }, pct(acc)), el('span', { class: 'ci-txt' }, range));
  }

  const ROW_CAP = 2000;
  // Sortable, filterable table. columns: [{label, num, value(row), render(row)}]
  function dataTable(columns, rows, options = {}) {
    const wrap = el('div');
    let sortIndex = options.sort != null ? options.sort : -1;
    let sortDir = options.dir || 1;
    let query = '';
    const table = el('table', { class: options.nowrap ? 'data nowrap' : 'data' });
    const headRow = el('tr');
    const body = el('tbody');
    columns.forEach((col, i) => {
      const th = el('th', { class: [col.num ? 'num' : '', col.wrap ? 'wrap' : '', col.cls || ''].join(' ').trim() || null, scope: 'col', title: col.title || null }, col.label);
      th.addEventListener('click', () => {
        sortDir = sortIndex === i ? -sortDir : col.num ? -1 : 1;
        sortIndex = i;
        draw();
      });
      headRow.appendChild(th);
    });
    table.append(el('thead', null, headRow), body);
    const texts = rows.map((row) => columns.map((c) => String(c.value(row) == null ? '' : c.value(row))).join(' ').toLowerCase());
    function draw() {
      headRow.childNodes.forEach((th, i) => th.setAttribute('aria-sort', i === sortIndex ? (sortDir > 0 ? 'ascending' : 'descending') : 'none'));
      let order = rows.map((_, i) => i).filter((i) => !query || texts[i].includes(query));
      if (sortIndex >= 0) {
        const key = columns[sortIndex].value;
        order.sort((a, b) => {
          const x = key(rows[a]), y = key(rows[b]);
          const xm = x == null || (typeof x === 'number' && Number.isNaN(x)), ym = y == null || (typeof y === 'number' && Number.isNaN(y));
          if (xm || ym) return xm === ym ? 0 : xm ? 1 : -1; // missing values always last
          return (typeof x === 'number' ? x - y : String(x).localeCompare(String(y), 'zh')) * sortDir;
        });
      }
      body.replaceChildren();
      // A page over a big bank can list hundreds of thousands of rows (the compare view): draw the first ROW_CAP.
      const hidden = Math.max(0, order.length - ROW_CAP);
      if (hidden) order = order.slice(0, ROW_CAP);
      for (const i of order) {
        const row = rows[i];
        const tr = el('tr', options.onRow ? { class: 'click', tabindex: 0 } : null);
        columns.forEach((c) => tr.appendChild(el('td', { class: [c.num ? 'num' : '', c.cls || ''].join(' ').trim() || null }, c.render ? c.render(row) : c.value(row))));
        if (options.onRow) {
          tr.addEventListener('click', (e) => { if (!e.target.closest('a,button,select,input')) options.onRow(row); });
          tr.addEventListener('keydown', (e) => { if (e.key === 'Enter') options.onRow(row); });
        }
        body.appendChild(tr);
      }
      if (!order.length) body.appendChild(el('tr', null, el('td', { class: 'empty', colspan: columns.length }, t('noData'))));
      if (hidden) body.appendChild(el('tr', null, el('td', { class: 'empty', colspan: columns.length }, t('moreRows').replace('{n}', String(hidden)))));
    }
    if (options.filter !== false) {
      const search = el('input', { type: 'search', placeholder: t('filter'), 'aria-label': t('filter') });
      search.addEventListener('input', () => { query = search.value.trim().toLowerCase(); draw(); });
      wrap.appendChild(el('div', { class: 'controls' }, search));
    }
    wrap.appendChild(el('div', { class: 'tablewrap' }, table));
    draw();
    return wrap;
  }

  // ---------------------------------------------------------------- aggregation (mirrors reports.aggregate)
  // Every question's coordinates come as columns of codes (reports.payload._coded); its texts only when the page
  // carries them (DATA.detail): a question without is shown by its id and results, its answers in questions.csv.
  const Q = (() => {
    const c = DATA.questions, out = new Array(c.id.length);
    for (let i = 0; i < c.id.length; i++) {
      const q = { id: c.id[i], node: c.points[c.node[i]] };
      for (const [key, codes] of Object.entries(c.code)) q[key] = c.values[key][codes[i]];
      const d = DATA.detail[i];
      out[i] = d ? Object.assign(d, q) : Object.assign(q, { stem: { t: '' }, options: [], answer: [], analysis: [], capped: true });
    }
    return out;
  })();
  const QINDEX = new Map(Q.map((q, i) => [q.id, i]));
  const TREE = DATA.tree;
  const under = {};
  function collect(id) {
    if (under[id]) return under[id];
    const node = TREE[id];
    // A question at two places (a Xiezhi question labelled in two 门类) counts once above them, as nodes.csv's root.
    under[id] = node.questions ? node.questions.slice() : [...new Set((node.children || []).flatMap(collect))];
    return under[id];
  }
  collect('all');
  const passes = (i) => Object.entries(state.filters).every(([k, val]) => !val || String(Q[i][k]) === val);

  function stats(indices, runId) {
    const res = DATA.results[runId];
    let n = 0, right = 0, answered = 0, unparsed = 0;
    const sums = {};
    for (const i of indices) {
      // Not asked (no record, skipped, failed): counts nowhere, as nodes.csv (runners.counting).
      if (!passes(i) || res.st[i] == null || res.st[i] === 3 || res.st[i] === 2) continue;
      answered += 1;
      if (res.st[i] === 1) unparsed += 1;
      // A judgment question counted per statement (res.w, res.r) weighs its statements, as nodes.csv does.
      if (res.c[i] != null) {
        const w = res.w && res.w[i] != null ? res.w[i] : 1;
        n += w; right += w === 1 && !(res.r && res.r[i] != null) ? res.c[i] : res.r[i];
      }
      for (const m of DATA.metrics) {
        const x = res.s[m.key][i];
        if (x != null) (sums[m.key] = sums[m.key] || []).push(x);
      }
    }
    const [lo, hi] = wilson(right, n);
    const metrics = {};
    for (const [key, xs] of Object.entries(sums)) {
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const sd = xs.length > 1 ? Math.sqrt(xs.reduce((a, b) => a + (b - mean) ** 2, 0) / (xs.length - 1)) : NaN;
      metrics[key] = { mean, sd, n: xs.length };
    }
    return { n, right, answered, acc: n ? right / n : NaN, lo, hi, unparsed: answered ? unparsed / answered : NaN, metrics };
  }
  function nodeStats(id, runId) {
    const s = stats(collect(id), runId);
    const node = TREE[id];
    if (node.children) {
      const accs = node.children.map((c) => stats(collect(c), runId)).filter((c) => c.n > 0).map((c) => c.acc);
      s.macro = accs.length ? accs.reduce((a, b) => a + b, 0) / accs.length : NaN;
    } else {
      s.macro = s.acc;
    }
    return s;
  }

  // ---------------------------------------------------------------- verdicts
  function hashText(text) {
    let h = 0x811c9dc5;
    for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h.toString(16);
  }
  // A mark is keyed by the answer it judges: model, mode, variant, question id, the question's wording and the steps'
  // text. The report's folder alone names the storage, so a folder rebuilt with another bank whose question holds
  // the same id (a teacher's own bank numbers its questions 1, 2, 3) and is answered in the same words ('答案是 B')
  // must not show the first bank's mark on it. Marks saved without the wording in their key are keyed anew on load.
  const entryKey = (e) => [e.model, e.mode, e.variant, e.question_id, hashText(e.steps.join('\n')), hashText(e.problem || '')].join('|');
  const loadVerdicts = () => {
    let saved;
    try { saved = JSON.parse(localStorage.getItem(VERDICT_KEY) || '{}'); } catch (e) { return {}; }
    const all = {};
    for (const entry of Object.values(saved || {})) if (entry && Array.isArray(entry.steps)) all[entryKey(entry)] = entry;
    return all;
  };
  const saveVerdicts = (all) => localStorage.setItem(VERDICT_KEY, JSON.stringify(all));
  function answerEntry(runId, qi) {
    const run = runById[runId];
    return { model: run.model, mode: run.mode, variant: run.variant, question_id: Q[qi].id, problem: Q[qi].stem.t, steps: DATA.answers[runId][qi].steps.map((s) => s.t) };
  }
  const verdictKey = (runId, qi) => entryKey(answerEntry(runId, qi));
  // Marks saved by the released page (its storage named by the folder and the runs: DATA.meta.legacy_identity) move
  // to this page's storage, each only when the answer it judges is here word for word (model, mode, variant,
  // question id, wording and steps); the others stay where they were, for the page they belong to.
  function adoptLegacyMarks() {
    const legacyKey = DATA.meta.legacy_identity ? 'k12eval.verdicts.v2.' + DATA.meta.legacy_identity : null;
    if (!legacyKey || legacyKey === VERDICT_KEY) return;
    let old;
    try { old = JSON.parse(localStorage.getItem(legacyKey) || 'null'); } catch (e) { return; }
    if (!old || typeof old !== 'object') return;
    const all = loadVerdicts(), left = {};
    let moved = 0;
    for (const [key, entry] of Object.entries(old)) {
      const qi = entry && Array.isArray(entry.steps) ? QINDEX.get(entry.question_id) : undefined;
      const here = qi === undefined ? [] : DATA.runs.filter((r) => r.model === entry.model && r.mode === entry.mode && r.variant === entry.variant && DATA.answers[r.id][qi]).map((r) => answerEntry(r.id, qi));
      const same = here.some((h) => h.problem === entry.problem && h.steps.length === entry.steps.length && h.steps.every((s, k) => s === entry.steps[k]));
      if (same && !all[entryKey(entry)]) { all[entryKey(entry)] = entry; moved++; } else left[key] = entry;
    }
    if (!moved) return;
    saveVerdicts(all);  // saved before the old entries go: a page closed in between loses nothing
    if (Object.keys(left).length) localStorage.setItem(legacyKey, JSON.stringify(left));
    else localStorage.removeItem(legacyKey);
  }
  function getLabels(runId, qi) {
    const here = answerEntry(runId, qi), entry = loadVerdicts()[entryKey(here)];
    // The whole text compared, not its 32-bit hash: a mark shows on the answer it was given to, never on another.
    const same = entry && entry.problem === here.problem && entry.steps.length === here.steps.length && entry.steps.every((s, k) => s === here.steps[k]);
    return same ? entry.labels : here.steps.map(() => null);
  }
  function setLabels(runId, qi, labels) {
    const all = loadVerdicts();
    const key = verdictKey(runId, qi);
    if (labels.every((x) => x == null)) delete all[key];
    else all[key] = { run: runId, ...answerEntry(runId, qi), labels, correct: DATA.answers[runId][qi].correct, at: new Date().toISOString() };
    saveVerdicts(all);
  }
  function exportLine(entry, id) {
    const first = entry.labels.indexOf(false);
    const judged = first >= 0 ? entry.labels.slice(0, first) : entry.labels;
    return {
      id, source: 'k12eval-report', model: entry.model, mode: entry.mode,
      variant: entry.variant, run: entry.run, question_id: entry.question_id, problem: entry.problem,
      steps: entry.steps, step_labels: entry.labels, first_error: first,
      complete: judged.every((x) => x === true), final_answer_correct: entry.correct, labelled_at: entry.at,
    };
  }
  // Ids are `<run>:<question_id>`, unique: a folder rebuilt with a rerun (its run named as before) keeps the marks
  // of the earlier answer too, and meta-eval refuses a file whose ids repeat. A repeated one names its answer.
  const exportLines = () => {
    const entries = Object.values(loadVerdicts());
    const plain = (e) => e.run + ':' + e.question_id;
    const times = entries.reduce((n, e) => n.set(plain(e), (n.get(plain(e)) || 0) + 1), new Map());
    const id = (e) => (times.get(plain(e)) > 1 ? plain(e) + '#' + hashText(e.steps.join('\n')) + hashText(e.problem || '') : plain(e));
    return entries.map((e) => exportLine(e, id(e)));
  };
  const exportText = () => exportLines().map((line) => JSON.stringify(line)).join('\n') + '\n';
  try { adoptLegacyMarks(); } catch (e) { /* storage refused (private window): the old marks stay where they are */ }

  // ---------------------------------------------------------------- shared widgets
  function runSelect(value, onChange, allowNone) {
    const select = el('select', { 'aria-label': t('run') });
    if (allowNone) select.appendChild(el('option', { value: '' }, '—'));
    for (const run of DATA.runs) select.appendChild(el('option', { value: run.id, selected: run.id === value, title: runTitle(run) }, runLabel(run)));
    select.addEventListener('change', () => onChange(select.value));
    return select;
  }
  function filterControls() {
    const box = el('div', { class: 'controls' });
    for (const key of ['stage', 'type', 'difficulty', 'group']) {
      const values = [...new Set(Q.map((q) => q[key]).filter((x) => x != null))].sort();
      if (values.length < 2 && !state.filters[key]) continue;
      const select = el('select', { 'aria-label': t(key), 'data-filter': key },
        el('option', { value: '' }, t('all')), values.map((x) => el('option', { value: x, selected: state.filters[key] === String(x) }, v(x))));
      select.addEventListener('change', () => { state.filters[key] = select.value; route(); });
      box.appendChild(el('label', null, t(key), select));
    }
    return box;
  }
  function crumbs(id) {
    const chain = [];
    for (let cur = id; cur; cur = TREE[cur] ? TREE[cur].parent : null) chain.unshift(cur);
    const box = el('nav', { class: 'crumbs', 'aria-label': t('pathNav') });
    chain.forEach((cur, i) => {
      if (i) box.appendChild(el('span', { class: 'sep' }, '›'));
      const name = cur === 'all' ? t('all') : TREE[cur].name;
      box.appendChild(i === chain.length - 1 && !id.startsWith('q') ? el('strong', null, name) : link(nodeHash(cur), name));
    });
    return box;
  }
  function resultMark(runId, qi) {
    const res = DATA.results[runId];
    const st = res.st[qi];
    if (st == null) return el('span', { class: 'muted', title: t('noAnswer') }, '·');
    if (st === 3) return el('span', { class: 'mark muted', title: v('skipped') }, '–');
    if (st === 1 || st === 2) return el('span', { class: 'mark warn', title: v(st === 1 ? 'unparsed' : 'failed') }, '?');
    const [r, w] = statementsRight(res, qi);
    if (w != null && r > 0 && r < w) return el('span', { class: 'mark partial', title: fillIn(t('statementsRight'), { r, w }) }, r + '/' + w);
    return res.c[qi] ? el('span', { class: 'mark good', title: t('right') }, '✓') : el('span', { class: 'mark bad', title: t('wrong') }, '✗');
  }
  // A judgment counted per statement (res.w, res.r, as nodes.csv counts): [right statements, statements]; else [c, null].
  const statementsRight = (res, i) => (res.w && res.w[i] != null ? [res.r[i], res.w[i]] : [res.c[i], null]);
  // The share of a question a run got right: its statements' share under per-statement counting, else 1 or 0.
  const shareRight = (res, i) => { const [r, w] = statementsRight(res, i); return r == null ? null : w == null ? Number(r) : r / w; };

  // ---------------------------------------------------------------- views
  function viewOverview() {
    const root = el('div');
    root.appendChild(el('h2', null, t('overview')));
    const cards = el('div', { class: 'cards' });
    for (const run of DATA.runs) {
      const accuracy = pct(run.n ? run.correct / run.n : run.acc_micro);  // from the counts, as accCell
      const interval = t('interval') + ' ' + (run.n ? wilson(run.correct, run.n) : [run.acc_micro_lo, run.acc_micro_hi]).map((x) => pct(x, 0)).join(' – ');
      // A run of GAOKAO-Bench's records alone heads with its points (the paper's unit); its counts are records.
      const release = run.unit === 'records' && run.gaokao ? run.gaokao['gaokao-release'] : null;
      const ours = release ? run.gaokao.k12eval : null;
      const head = release
        ? [el('div', { class: 'big' }, pct(release.rate)),
          el('div', { class: 'muted small' }, fillIn(t('gaokaoRate'), { e: release.earned, p: release.possible, q: release.questions })),
          el('div', { class: 'muted small' }, fillIn(t('gaokaoOurs'), { r: pct(ours.rate), e: ours.earned, p: ours.possible })),
          el('div', { class: 'muted small' }, t('byRecord') + ' ' + accuracy + ' · ' + interval + ' · ' + t('records') + ' ' + run.answered),
          el('div', { class: 'muted small' }, t('recordsOfBank') + ' ' + run.asked + ' / ' + run.in_bank)]
        : [el('div', { class: 'big' }, accuracy),
          el('div', { class: 'muted small' }, interval + ' · ' + t('n') + ' ' + run.answered),
          el('div', { class: 'muted small' }, t('askedOfBank') + ' ' + run.asked + ' / ' + run.in_bank)];
      // The bank's records --skip-invalid left out are in no figure: the card says how many, and names them.
      if (run.invalid || run.invalid_unread) {
        head.push(el('details', { class: 'muted small invalid' },
          el('summary', null, fillIn(t('invalidLeftOut'), { n: run.invalid || 0 }),
            run.invalid_unread ? fillIn(t('invalidUnread'), { u: run.invalid_unread }) : null),
          (run.invalid_records || []).map((text) => el('div', null, text)),
          // Only the first few are on the page: the rest are said to exist, not dropped silently.
          (run.invalid_named || 0) > (run.invalid_records || []).length
            ? el('div', { class: 'more' }, fillIn(t('invalidMore'), { k: run.invalid_named - run.invalid_records.length }))
            : null));
      }
      cards.appendChild(el('div', { class: 'runcard' },
        el('div', { class: 'label', title: runTitle(run) }, runLabel(run)),
        ...head,
        el('div', { class: 'muted small', title: t('macroHelp') + '\n' + t('unparsedHelp') }, t('macro') + ' ' + pct(run.acc_macro) + ' · ' + t('unparsedRate') + ' ' + pct(run.unparsed_rate)),
        el('div', { class: 'muted small' }, t('scoredSteps') + ' ' + run.scored_steps)));
    }
    root.appendChild(cards);
    const records = recordsNote();
    if (records) root.appendChild(records);
    const note = perStatementNote(collect('all'));
    if (note) root.appendChild(note);
    if (DATA.meta.warnings && DATA.meta.warnings.length) {
      root.appendChild(el('div', { class: 'note' }, el('strong', null, t('warnings') + ': '), (state.lang === 'zh' && DATA.meta.warnings_zh ? DATA.meta.warnings_zh : DATA.meta.warnings).map((w) => el('div', null, w))));
    }
    const heat = DATA.overview.heatmap;
    const table = el('table', { class: 'data heat' });
    table.appendChild(el('thead', null, el('tr', null, el('th', null, t('subject')), heat.cols.map((r) => el('th', { class: 'run' }, runLabel(runById[r]))))));
    const body = el('tbody');
    for (const subject of heat.rows) {
      const tr = el('tr', null, el('th', null, link(nodeHash(subject), TREE[subject].name)));
      for (const runId of heat.cols) {
        const cell = heat.cells[runId + '|' + subject];
        const td = el('td', { class: 'cell', title: cell ? Math.round(cell[6]) + '/' + cell[5] + '  ' + t('interval') + ' ' + pct(cell[2], 0) + '–' + pct(cell[3], 0) + ', ' + t('unparsedRate') + ' ' + pct(cell[4]) : null },
          cell ? pct(cell[1]) : '—', el('span', { class: 'n' }, cell ? fillIn(t(runById[runId].unit === 'records' ? 'nRecordsOf' : 'nOf'), { n: cell[0] }) : ''));  // GAOKAO-Bench's count records
        td.style.background = colour(cell ? cell[1] : null);
        td.addEventListener('click', () => { state.run = runId; location.hash = nodeHash(subject); });
        tr.appendChild(td);
      }
      body.appendChild(tr);
    }
    table.appendChild(body);
    root.appendChild(el('div', { class: 'card' }, el('h3', null, t('heatmap')), el('div', { class: 'tablewrap' }, table)));

    const groups = [...new Set(Object.keys(DATA.overview.groups).map((k) => k.split('|')[1]))].sort();
    const grid = el('div', { class: 'grid2' });
    if (groups.length) {
      const rows = DATA.runs.map((r) => ({ run: r, cells: groups.map((g) => DATA.overview.groups[r.id + '|' + g]) }));
      const heading = groups.every((g) => g === 'arts' || g === 'science') ? t('artsScience') : t('categories');  // CMMLU's, C-Eval's
      grid.appendChild(el('div', { class: 'card' }, el('h3', null, heading),
        dataTable([{ label: t('run'), value: (r) => runLabel(r.run) },
          ...groups.map((g, i) => ({ label: v(g), num: true, value: (r) => (r.cells[i] ? r.cells[i][1] : null),
            render: (r) => (r.cells[i] ? accCell(r.cells[i][1], r.cells[i][2], r.cells[i][3], r.cells[i][5], r.cells[i][6]) : '—') }))],
        rows, { filter: false })));
    }
    grid.appendChild(el('div', { class: 'card' }, el('h3', null, t('unparsedRate')),
      dataTable([{ label: t('run'), value: (r) => runLabel(r) }, { label: t('unparsedRate'), title: t('unparsedHelp'), num: true, value: (r) => r.unparsed_rate, render: (r) => pct(r.unparsed_rate) },
        { label: t('n'), num: true, value: (r) => r.answered }], DATA.runs, { filter: false })));
    root.appendChild(grid);

    const weak = DATA.overview.weakest;
    root.appendChild(el('div', { class: 'card' }, el('h3', null, t('weakest')), el('p', { class: 'muted small' }, t('weakestNote')),
      dataTable([
        { label: t('run'), value: (r) => runLabel(runById[r.run]) },
        { label: t('subject'), value: (r) => r.subject },
        { label: t('level1'), value: (r) => r.level1 },
        { label: t('level2'), value: (r) => r.name, render: (r) => link(nodeHash(r.node), r.name) },
        { label: t('n'), num: true, value: (r) => r.records },
        { label: t('accuracy'), num: true, value: (r) => r.acc_micro, render: (r) => accCell(r.acc_micro, r.acc_micro_lo, r.acc_micro_hi, r.n, r.correct) },
      ], weak, { onRow: (r) => { state.run = r.run; location.hash = nodeHash(r.node); } })));
    return root;
  }

  function viewNode(id) {
    if (!TREE[id]) id = 'all';
    const node = TREE[id];
    const root = el('div');
    root.appendChild(crumbs(id));
    root.appendChild(el('h2', null, id === 'all' ? t('knowledge') : node.name));
    const controls = filterControls();
    controls.prepend(el('label', null, t('run'), runSelect(state.run, (x) => { state.run = x; route(); })));
    if (node.children) {
      const box = el('input', { type: 'checkbox', checked: state.showEmpty });
      box.addEventListener('change', () => { state.showEmpty = box.checked; route(); });
      controls.appendChild(el('label', null, box, t('showEmpty')));
    }
    root.appendChild(controls);

    // This node, every run; step-score columns only where some run has the score here
    const here = DATA.runs.map((r) => ({ run: r, s: nodeStats(id, r.id) }));
    const metrics = DATA.metrics.filter((m) => here.some((r) => r.s.metrics[m.key]));
    root.appendChild(el('div', { class: 'card' }, dataTable([
      { label: t('run'), value: (r) => runLabel(r.run) },
      { label: t('n'), num: true, value: (r) => r.s.answered },
      { label: t('micro'), title: t('microHelp'), num: true, value: (r) => r.s.acc, render: (r) => accCell(r.s.acc, r.s.lo, r.s.hi, r.s.n, r.s.right) },
      { label: t('macro'), title: t('macroHelp'), num: true, value: (r) => r.s.macro, render: (r) => pct(r.s.macro) },
      { label: t('unparsedRate'), title: t('unparsedHelp'), num: true, value: (r) => r.s.unparsed, render: (r) => pct(r.s.unparsed) },
      ...metrics.map((m) => ({ label: metricName(m), num: true, value: (r) => (r.s.metrics[m.key] || {}).mean,
        render: (r) => columnCell(r.run, m.key, metricText(r.s.metrics[m.key])) })),
    ], here, { filter: false }), greyedNote(here.map((r) => r.run), metrics.map((m) => m.key)), perStatementNote(collect(id)), recordsNote()));

    if (node.children) {
      const rows = node.children.map((c) => ({ id: c, name: TREE[c].name, s: nodeStats(c, state.run),
        others: DATA.runs.filter((r) => r.id !== state.run).map((r) => nodeStats(c, r.id)) }))
        .filter((r) => state.showEmpty || r.s.answered > 0 || r.others.some((o) => o.answered > 0));
      const others = DATA.runs.filter((r) => r.id !== state.run);
      const kind = TREE[node.children[0]] ? TREE[node.children[0]].kind : 'subject';
      root.appendChild(el('h3', null, t(kind === 'subject' ? 'subject' : kind) + ' · ' + runLabel(runById[state.run])));
      root.appendChild(dataTable([
        { label: t('name'), value: (r) => r.name, render: (r) => link(nodeHash(r.id), r.name) },
        { label: t('n'), num: true, value: (r) => r.s.answered },
        { label: t('micro'), title: t('microHelp'), num: true, value: (r) => r.s.acc, render: (r) => accCell(r.s.acc, r.s.lo, r.s.hi, r.s.n, r.s.right) },
        { label: t('macro'), title: t('macroHelp'), num: true, value: (r) => r.s.macro, render: (r) => pct(r.s.macro) },
        { label: t('unparsedRate'), title: t('unparsedHelp'), num: true, value: (r) => r.s.unparsed, render: (r) => pct(r.s.unparsed) },
        ...metrics.map((m) => ({ label: metricName(m), num: true, value: (r) => (r.s.metrics[m.key] || {}).mean, render: (r) => metricText(r.s.metrics[m.key]) })),
        ...others.map((o, i) => ({ label: runLabel(o), title: t('accuracy') + ' · ' + runLabel(o), num: true, wrap: true, value: (r) => r.others[i].acc, render: (r) => pct(r.others[i].acc) })),
      ], rows, { sort: 2, dir: 1, onRow: (r) => { location.hash = nodeHash(r.id); } }));
    } else {
      // '#': the question's place in its point, as the pager counts it (its place on the page moves when a rebuild adds a run).
      const rows = node.questions.filter(passes).map((i, k) => ({ i, q: Q[i], pos: k + 1 }));
      root.appendChild(el('h3', null, t('questions') + ' (' + rows.length + ')'));
      root.appendChild(dataTable([
        { label: '#', num: true, cls: 'narrow', value: (r) => r.pos },
        { label: t('type'), cls: 'narrow', value: (r) => v(r.q.type) },
        { label: t('difficulty'), cls: 'narrow', value: (r) => r.q.difficulty },
        { label: t('stem'), cls: 'stemcol', value: (r) => shown(r.q.stem), render: (r) => link(qHash(r.i, id), snippet(shown(r.q.stem) || r.q.id)) },
        ...DATA.runs.map((run) => ({ label: runLabel(run), wrap: true, cls: 'markcol', value: (r) => DATA.results[run.id].c[r.i], render: (r) => resultMark(run.id, r.i) })),
      ], rows, { onRow: (r) => { location.hash = qHash(r.i, id); } }));
    }
    return root;
  }
  const snippet = (text) => (text.length > 70 ? text.slice(0, 69) + '…' : text);
  // A score column that separated nothing on the labelled set for this run's encoder is greyed, the reason on hover.
  const columnCell = (run, key, text) => {
    const col = (run.columns || {})[key];
    return col && col.separates === false ? el('span', { class: 'muted', title: col[state.lang + '_detail'] }, text) : text;
  };
  // Under a table whose accuracy counts a judgment's statements (CK12's released scorer): how to read it.
  // Where a run counts GAOKAO-Bench's records (which hold several questions each): say so beside its counts.
  const recordsNote = () => {
    const runs = DATA.runs.filter((r) => r.unit === 'records');
    return runs.length ? el('div', { class: 'muted small scale-note' }, fillIn(t('recordsNote'), { runs: runs.map(runLabel).join(', ') })) : null;
  };
  const perStatementNote = (indices) => (DATA.meta.judgment === 'per-statement' && indices.some((i) => Q[i].type === 'judgment')
    ? el('div', { class: 'muted small scale-note' }, t('perStatementNote')) : null);
  // Beside a table of step scores: which columns are greyed and why, in a teacher's words (figures on hover).
  function greyedNote(runs, keys) {
    const lines = [];
    for (const run of runs) {
      const greyed = keys.filter((k) => ((run.columns || {})[k] || {}).separates === false);
      if (!greyed.length) continue;
      const names = greyed.map((k) => metricLabel(k)).join(state.lang === 'zh' ? '、' : ', ');
      lines.push(el('div', { class: 'muted small scale-note', title: run.columns[greyed[0]][state.lang + '_detail'] },
        (runs.length > 1 ? runLabel(run) + colon() : '') + names + colon() + run.columns[greyed[0]][state.lang]));
    }
    return lines;
  }
  const metricText = (m) => (m ? fmt(m.mean, 3) + (Number.isNaN(m.sd) ? '' : ' ± ' + fmt(m.sd, 2)) : '—');

  // A judgment's answer checked statement by statement against the gold verdicts: what the accuracy counts.
  function statementTable(a) {
    const mark = (x) => (x === true ? '✓' : x === false ? '✗' : '—');
    const given = Array.isArray(a.extracted) ? a.extracted : [];
    const head = el('tr', null, [t('statement'), t('gold'), t('modelSays'), t('verdict')].map((h) => el('th', { scope: 'col' }, h)));
    const rows = a.gold.map((g, i) => {
      const said = given.length === a.gold.length ? given[i] : null;
      const ok = said == null ? null : said === g;
      return el('tr', { class: ok === true ? 'good' : ok === false ? 'bad' : null, 'data-statement': i + 1 },
        el('td', { class: 'num' }, String(i + 1)), el('td', null, mark(g)), el('td', null, mark(said)),
        el('td', { class: ok === true ? 'mark good' : ok === false ? 'mark bad' : 'muted' }, ok === true ? t('right') : ok === false ? t('wrong') : t('notRead')));
    });
    return el('table', { class: 'data statements' }, el('thead', null, head), el('tbody', null, rows));
  }

  function goldText(q) {
    if (q.type === 'judgment') return q.answer.map((a, i) => (i + 1) + (a ? ' ✓' : ' ✗')).join('  ');
    return q.answer.join(q.type === 'fill_in_blank' ? '; ' : '');
  }
  function answerText(value) {
    if (value == null) return '—';
    if (Array.isArray(value)) return value.map((x) => (x === true ? '✓' : x === false ? '✗' : String(x))).join(value.some((x) => typeof x === 'string' && x.length > 1) ? '; ' : '');
    return String(value);
  }

  // The question a `#q/...` address names: by id; else (a link from a page before ids) by its place here.
  // A bank that numbers its questions (a teacher's own: 1, 2, 3) makes every number an id: a number it lacks (a
  // question left out of a rebuild) opens nothing, not whichever question now stands at that place.
  const NUMBERED = Q.some((q) => /^\d+$/.test(q.id));
  function questionAt(arg) {
    if (QINDEX.has(arg)) return QINDEX.get(arg);
    return /^\d+$/.test(arg) && !NUMBERED ? Number(arg) : -1;
  }
  function viewQuestion(arg, point) {
    const qi = questionAt(arg);
    const q = Q[qi];
    const root = el('div');
    if (!q) return el('p', { class: 'empty' }, t('noData'));
    const at = point && TREE[point] && (TREE[point].questions || []).includes(qi) ? point : q.node;
    const siblings = TREE[at].questions.filter(passes);
    const pos = siblings.indexOf(qi);
    const pager = el('div', { class: 'pager' },
      pos > 0 ? link(qHash(siblings[pos - 1], at), '← ' + t('prev')) : null,
      el('span', { class: 'muted' }, (pos + 1) + ' / ' + siblings.length),
      pos >= 0 && pos < siblings.length - 1 ? link(qHash(siblings[pos + 1], at), t('next') + ' →') : null);
    const bar = crumbs(at);
    bar.appendChild(pager);
    root.appendChild(bar);

    const card = el('div', { class: 'card' });
    card.appendChild(el('div', null, [q.subject, v(q.stage), v(q.type), q.difficulty].filter(Boolean).map((x) => el('span', { class: 'chip' }, x)),
      el('span', { class: 'chip muted' }, t('id') + ' ' + q.id)));
    if (q.stand_in) card.appendChild(el('div', { class: 'note' }, t('standIn')));
    if (q.capped) card.appendChild(el('div', { class: 'note' }, t('capped')));
    card.appendChild(el('div', { class: 'stem' }, rich(q.stem)));
    const goldSet = new Set(q.type === 'judgment' ? [] : q.answer.map(String));
    if (q.options.length) {
      card.appendChild(el('ol', { class: 'options' }, q.options.map((o) =>
        el('li', { class: goldSet.has(o.label) && q.type !== 'cloze' && q.type !== 'sorting' ? 'gold' : null },
          el('span', { class: 'lab' }, o.label + '.'), ' ', rich(o, true)))));
    }
    card.appendChild(el('div', { class: 'goldline' }, el('strong', null, t('gold') + '：'), q.type === 'judgment' ? goldText(q) : answerRich(q.answer.map(String))));
    root.appendChild(card);

    if (q.analysis.length) {
      root.appendChild(el('div', { class: 'card' }, el('h3', null, t('analysis')),
        el('ol', { class: 'steps' }, q.analysis.map((s) => el('li', null, el('div', { class: 'text' }, rich(s)))))));
    }

    // Which runs to show side by side
    const answered = DATA.runs.filter((r) => DATA.answers[r.id][qi]);
    const chips = el('div', { class: 'legend' }, DATA.runs.map((r) => {
      const chip = el('button', { type: 'button', class: 'vbtn', title: runLabel(r) }, resultMark(r.id, qi), ' ', runLabel(r));
      chip.addEventListener('click', () => { state.runB = state.run; state.run = r.id; route(); });
      return chip;
    }));
    const controls = el('div', { class: 'controls' },
      el('label', null, t('runA'), runSelect(state.run, (x) => { state.run = x; route(); })),
      DATA.runs.length > 1 ? el('label', null, t('runB'), runSelect(state.runB, (x) => { state.runB = x; route(); }, true)) : null);
    root.appendChild(el('h3', null, t('answers') + ' (' + answered.length + '/' + DATA.runs.length + ')'));
    root.appendChild(chips);
    root.appendChild(controls);
    root.appendChild(el('p', { class: 'muted small' }, t('clickHint')));
    const panels = el('div', { class: 'grid2' });
    for (const runId of [state.run, state.runB].filter((x, i, all) => x && all.indexOf(x) === i)) panels.appendChild(answerPanel(runId, qi));
    root.appendChild(panels);
    return root;
  }

  function matchLine(label, match, scoreLabel) {
    if (!match) return null;
    return el('div', null, el('span', { class: 'q' }, label + (match.score != null ? '（' + scoreLabel + ' ' + fmt(match.score, 2) + '）' : '') + '：'), rich(match));
  }
  function stepTitle(step) {
    const parts = step.flags.map(flagName).concat((step.findings || []).map((f) => findingName(f.kind) + colon() + findingText(f)));
    if (step.src) parts.push(t('source') + ': ' + shown(step.src));
    if (step.ref) parts.push(t('reference') + ': ' + shown(step.ref));
    if (step.con) parts.push(t('contradiction') + ': ' + shown(step.con));
    return parts.join('\n') || null;
  }

  function answerPanel(runId, qi) {
    const run = runById[runId];
    const a = DATA.answers[runId][qi];
    const panel = el('div', { class: 'card answer', 'data-run': runId });
    if (!a) {
      const why = Q[qi].capped && DATA.results[runId].st[qi] != null ? 'capped' : 'noAnswer';
      panel.append(el('div', { class: 'panel-head' }, el('span', { class: 'label', title: runTitle(run) }, runLabel(run))), el('p', { class: 'muted' }, t(why)));
      return panel;
    }
    const [right, statements] = statementsRight(DATA.results[runId], qi);
    const partial = a.status === 'ok' && statements != null && right > 0 && right < statements;
    const verdict = a.status === 'skipped' ? el('span', { class: 'chip' }, v('skipped'))
      : a.status !== 'ok' ? el('span', { class: 'chip warn' }, v(a.status))
        : partial ? el('span', { class: 'chip warn' }, fillIn(t('statementsRight'), { r: right, w: statements }))
          : a.correct ? el('span', { class: 'chip good' }, '✓ ' + t('right')) : el('span', { class: 'chip bad' }, '✗ ' + t('wrong'));
    panel.appendChild(el('div', { class: 'panel-head' }, el('span', { class: 'label', title: runTitle(run) }, runLabel(run)), verdict));
    if (a.options) {
      panel.appendChild(el('div', { class: 'variant' }, el('div', { class: 'muted small' }, t('variantSaw') + ' (' + v(run.variant) + ')'),
        el('ol', { class: 'options' }, a.options.map((o) => el('li', { class: (a.variant_answer || []).map(String).includes(o.label) ? 'gold' : null },
          el('span', { class: 'lab' }, o.label + '.'), ' ', rich(o, true))))));
    }
    const kv = el('dl', { class: 'kv' },
      el('dt', null, t('extracted')), el('dd', { class: 'extracted' }, answerRich(a.extracted)),
      el('dt', null, t('gold')), el('dd', { class: 'gold' }, answerRich(a.gold)));
    if (Q[qi].type === 'judgment' && Array.isArray(a.gold) && a.gold.length > 1) kv.append(el('dt', null, t('byStatement')), el('dd', null, statementTable(a)));
    if (a.rank != null) kv.append(el('dt', null, t('rank')), el('dd', null, String(a.rank)));
    if (a.partial != null) kv.append(el('dt', null, t('partial')), el('dd', null, pct(a.partial)));
    const scoreKeys = Object.keys(a.scores || {});
    if (scoreKeys.length) {
      // A score with a calibrated reading shows that reading (0 = no closer than an unrelated sentence), the raw
      // value on hover: the raw one alone (0.99 against an unrelated floor of 0.93) reads better than it is.
      // A score that did not tell right from wrong on labelled answers is greyed, saying so beside it.
      const chips = scoreKeys.map((k) => {
        const m = DATA.metrics.find((x) => x.key === k);
        const col = (run.columns || {})[k] || {};
        const cal = (a.calibrated || {})[k];
        const why = [(a.unavailable || {})[k] ? reasonText(a.unavailable[k]) : null,
          cal != null ? t('rawValue') + ' ' + fmt(a.scores[k], 2) : null, col[state.lang + '_detail']].filter(Boolean).join('\n');
        const value = cal != null ? fmt(cal, 2) + t('scaledMark') : fmt(a.scores[k], 2);
        return el('span', { class: 'chip' + (col.separates === false ? ' muted' : ''), title: why || null, 'data-metric': k },
          (m ? metricName(m) : k) + ' ' + value, col.separates === false ? el('span', { class: 'small' }, ' · ' + t('greyedShort')) : null);
      });
      const notes = [];
      if (scoreKeys.some((k) => (a.calibrated || {})[k] != null)) notes.push(t('scaled') + colon() + DATA.scale[state.lang]);
      const greyed = scoreKeys.filter((k) => ((run.columns || {})[k] || {}).separates === false);
      if (greyed.length) notes.push(run.columns[greyed[0]][state.lang]);
      kv.append(el('dt', null, t('scores')), el('dd', null, chips, notes.map((x) => el('div', { class: 'muted small scale-note' }, x))));
    }
    const missing = Object.entries(a.unavailable || {});
    if (missing.length) kv.append(el('dt', null, t('unavailable')), el('dd', { class: 'muted small' }, missing.map(([k, why]) => metricLabel(k) + colon() + reasonText(why)).join(listSep())));
    if ((a.solution_flags || []).length) kv.append(el('dt', null, t('solutionFlags')), el('dd', null, findingList(a.solution_flags, null, null, run)));
    const off = Object.entries(a.detectors_unavailable || {});
    if (off.length) kv.append(el('dt', null, t('detectorsOff')), el('dd', { class: 'muted small' }, off.map(([k, why]) => detectorName(k) + colon() + reasonText(why)).join(listSep())));
    if (a.error) kv.append(el('dt', null, v('failed')), el('dd', { class: 'muted' }, a.error));
    panel.appendChild(kv);

    const labels = getLabels(runId, qi);
    // A learned combiner's verdict replaces the rule's first suspect and the opaque suspicion.
    const comb = a.combined || null;
    const suspectAt = comb ? comb.first_suspect : a.first_suspect;
    // The shares explain the likeliest first error: an answer graded wrong, or one called wrong (a step at or
    // above the threshold) by a combiner that then locates it the same way.
    const likeliest = comb && (comb.graded_wrong || (comb.locate === 'likeliest' && comb.first_suspect != null));
    const shares = likeliest ? firstErrorShares(a.steps) : null;
    const list = el('ol', { class: 'steps' });
    a.steps.forEach((step, k) => {
      const classes = [];
      const findings = step.findings || [];
      if (step.flags.length || findings.length) classes.push('flagged');
      classes.push(...step.flags.map((f) => 'flag-' + f.replace(/[^a-z_]/gi, '')));
      classes.push(...findings.map((f) => 'finding-' + String(f.kind).replace(/[^a-z_]/gi, '')));
      if (findings.some((f) => !contextKind(run, f.kind) && findingClass(f, step, comb) === 'bad')) classes.push('severe');
      if (suspectAt === k) classes.push('suspect');
      if (labels[k] === true) classes.push('t-right');
      if (labels[k] === false) classes.push('t-wrong');
      const li = el('li', { class: classes.join(' '), 'data-step': k });
      const text = el('div', { class: 'text', title: stepTitle(step), tabindex: 0, role: 'button' }, rich(step));
      const openKey = runId + ':' + qi + ':' + k;
      const detail = el('div', { class: 'detail' },
        matchLine(t('source'), step.src, t('similarity')),
        matchLine(t('reference'), step.ref, t('similarity')),
        matchLine(t('contradiction'), step.con, t('probability')),
        Object.keys(step.values || {}).length ? el('div', { class: 'muted small' }, Object.entries(step.values).map(([k2, x]) => t('value_' + k2) + ' ' + fmt(x, 3)).join(' · ')) : null);
      if (!detail.childNodes.length) detail.appendChild(el('span', { class: 'muted' }, t('none')));
      detail.hidden = !state.open[openKey];
      const toggle = () => { state.open[openKey] = detail.hidden; detail.hidden = !detail.hidden; };
      text.addEventListener('click', toggle);
      text.addEventListener('keydown', (e) => { if (e.key === 'Enter') toggle(); });
      const nums = [step.src && step.src.score != null ? t('simSource') + ' ' + fmt(step.src.score, 2) : null,
        step.ref && step.ref.score != null ? t('simReference') + ' ' + fmt(step.ref.score, 2) : null,
        step.con && step.con.score != null ? t('contradictionShort') + ' ' + fmt(step.con.score, 2) : null,
        step.sus && !comb ? t('suspicion') + ' ' + fmt(step.sus, 2) : null].filter(Boolean);
      const prob = comb && step.p != null
        ? el('span', { class: !shares && step.p >= comb.threshold ? 'chip prob bad' : 'chip prob', 'data-p': String(step.p) }, t('pFirstWrong') + ' ' + fmt(step.p, 2))
        : null;
      const share = shares ? el('span', { class: suspectAt === k ? 'chip share bad' : 'chip share', 'data-share': String(shares[k]) }, t('firstShare') + ' ' + pct(shares[k], 0)) : null;
      const flags = el('span', null, prob, share, step.flags.map((f) => el('span', { class: contextKind(run, f) ? 'chip ctx' : f === 'contradicts_source' || f === 'arithmetic_error' ? 'chip bad' : 'chip warn',
        title: contextKind(run, f) ? contextKind(run, f)[state.lang] + '\n' + contextKind(run, f)[state.lang + '_detail'] : null }, flagName(f))),
        suspectAt === k ? (comb ? el('span', { class: 'chip bad' }, '⚠ ' + t('combinerSuspect')) : suspectChip(a.suspect_rule)) : null);
      const mark = (value) => {
        const next = getLabels(runId, qi).slice();
        next[k] = next[k] === value ? null : value;
        setLabels(runId, qi, next);
        route();
      };
      const firstError = () => {
        const next = a.steps.map((_, j) => (j < k ? true : j === k ? false : null));
        setLabels(runId, qi, next);
        route();
      };
      const tools = el('div', { class: 'tools' },
        el('button', { type: 'button', class: 'vbtn right' + (labels[k] === true ? ' on' : ''), 'data-verdict': 'right', on: { click: () => mark(true) } }, t('markRight')),
        el('button', { type: 'button', class: 'vbtn wrong' + (labels[k] === false ? ' on' : ''), 'data-verdict': 'wrong', on: { click: () => mark(false) } }, t('markWrong')),
        el('button', { type: 'button', class: 'vbtn', 'data-verdict': 'first', on: { click: firstError } }, t('firstError')),
        nums.length ? el('span', { class: 'stepnums' }, nums.join(' · ')) : null,
        flags);
      li.append(text);
      if (findings.length) li.append(findingList(findings, step, comb, run));
      li.append(tools, detail);
      list.appendChild(li);
    });
    panel.appendChild(el('h4', null, t('steps') + ' (' + a.steps.length + ')'));
    panel.appendChild(a.steps.length ? list : el('p', { class: 'muted' }, t('noSteps')));
    if (a.steps.length) {
      if (comb) panel.appendChild(el('p', { class: 'muted', 'data-help': 'combiner' }, combinerHelp(run, comb)));
      panel.appendChild(el('p', { class: 'muted', 'data-help': 'findings' }, t('findingsHelp')));
      const shownKinds = new Set(a.steps.flatMap((st) => [...st.flags, ...(st.findings || []).map((f) => f.kind)]).concat((a.solution_flags || []).map((f) => f.kind)));
      const context = [...shownKinds].filter((kind) => contextKind(run, kind));
      if (context.length) {
        const names = context.map((kind) => (LABELS.flags[kind] ? flagName(kind) : findingName(kind))).join(state.lang === 'zh' ? '、' : ', ');
        panel.appendChild(el('p', { class: 'muted', 'data-help': 'context' }, el('span', { class: 'chip ctx' }, t('contextFlags')), ' ', names + colon() + contextKind(run, context[0])[state.lang]));
      }
      panel.appendChild(el('div', { class: 'tools' },
        el('button', { type: 'button', class: 'btn ghost', 'data-verdict': 'all-right', on: { click: () => { setLabels(runId, qi, a.steps.map(() => true)); route(); } } }, t('allRight')),
        el('button', { type: 'button', class: 'btn ghost', 'data-verdict': 'clear', on: { click: () => { setLabels(runId, qi, a.steps.map(() => null)); route(); } } }, t('clear'))));
    }
    panel.appendChild(el('details', null, el('summary', null, t('rawOutput')), el('pre', { class: 'raw' }, a.output == null ? '' : a.output)));
    if (a.harness_prompt != null) panel.appendChild(el('details', { 'data-harness': '' }, el('summary', null, t('harnessPrompt')), el('pre', { class: 'raw' }, a.harness_prompt)));
    return panel;
  }

  function viewCompare() {
    const root = el('div');
    root.appendChild(el('h2', null, t('compare')));
    if (DATA.runs.length < 2) { root.appendChild(el('p', { class: 'empty' }, t('noData'))); return root; }
    if (!state.runB || state.runB === state.run) state.runB = DATA.runs.find((r) => r.id !== state.run).id;
    const controls = filterControls();
    controls.prepend(el('label', null, t('runA'), runSelect(state.run, (x) => { state.run = x; route(); })),
      el('label', null, t('runB'), runSelect(state.runB, (x) => { state.runB = x; route(); })));
    root.appendChild(controls);
    const A = DATA.results[state.run], B = DATA.results[state.runB];
    const counts = [0, 0, 0, 0];
    const differ = [];
    Q.forEach((q, i) => {
      if (!passes(i) || A.c[i] == null || B.c[i] == null) return;
      const a = shareRight(A, i), b = shareRight(B, i);  // a judgment's statements, as the accuracies count them
      const k = a === 1 && b === 1 ? 0 : a === 1 ? 1 : b === 1 ? 2 : 3;
      counts[k] += 1;
      if (a !== b) differ.push(i);
    });
    const n = counts.reduce((x, y) => x + y, 0);
    // '#': the place in its point among the questions the filters keep, as the question's pager counts it.
    const places = new Map();
    const placeInPoint = (i) => {
      if (!places.has(Q[i].node)) places.set(Q[i].node, new Map(TREE[Q[i].node].questions.filter(passes).map((j, k) => [j, k + 1])));
      return places.get(Q[i].node).get(i);
    };
    root.appendChild(el('div', { class: 'card' }, el('h3', null, fillIn(t('pairedOf'), { n })),
      el('div', null, [t('bothRight'), t('onlyA'), t('onlyB'), t('bothWrong')].map((label, k) =>
        el('span', { class: 'chip ' + ['good', '', '', 'bad'][k] }, label + ' ' + counts[k])))));
    // Each subject on the questions both runs were scored on, as the 2x2 counts: over each run's own questions,
    // two runs that asked different questions showed a difference the listed questions did not make.
    const paired = (s) => collect(s).filter((i) => A.c[i] != null && B.c[i] != null);
    const rows = TREE.all.children.map((s) => ({ id: s, name: TREE[s].name, a: stats(paired(s), state.run), b: stats(paired(s), state.runB) }));
    root.appendChild(el('div', { class: 'card' }, el('h3', null, t('subject') + ' · ' + t('paired')), dataTable([
      { label: t('subject'), value: (r) => r.name, render: (r) => link(nodeHash(r.id), r.name) },
      { label: t('runA') + ' · ' + runLabel(runById[state.run]), num: true, value: (r) => r.a.acc, render: (r) => accCell(r.a.acc, r.a.lo, r.a.hi, r.a.n, r.a.right) },
      { label: t('runB') + ' · ' + runLabel(runById[state.runB]), num: true, value: (r) => r.b.acc, render: (r) => accCell(r.b.acc, r.b.lo, r.b.hi, r.b.n, r.b.right) },
      { label: t('difference'), num: true, value: (r) => r.b.acc - r.a.acc, render: (r) => (Number.isNaN(r.b.acc - r.a.acc) ? '—' : ((r.b.acc - r.a.acc) * 100).toFixed(1)) },
    ], rows, { filter: false })));
    root.appendChild(el('h3', null, t('disagree') + ' (' + differ.length + ')'));
    root.appendChild(dataTable([
      { label: '#', num: true, cls: 'narrow', value: placeInPoint },
      { label: t('subject'), value: (i) => Q[i].subject },
      { label: t('level2'), value: (i) => TREE[Q[i].node].name },
      { label: t('stem'), cls: 'stemcol', value: (i) => shown(Q[i].stem), render: (i) => link(qHash(i), snippet(shown(Q[i].stem) || Q[i].id)) },
      { label: 'A', cls: 'markcol', value: (i) => A.c[i], render: (i) => resultMark(state.run, i) },
      { label: 'B', cls: 'markcol', value: (i) => B.c[i], render: (i) => resultMark(state.runB, i) },
    ], differ, { onRow: (i) => { location.hash = qHash(i); } }));
    return root;
  }

  function viewVerdicts() {
    const root = el('div');
    root.appendChild(el('h2', null, t('verdicts')));
    root.appendChild(el('p', { class: 'muted' }, t('verdictHelp')));
    const entries = exportLines();
    const text = exportText();
    const download = el('button', { type: 'button', class: 'btn', id: 'export-verdicts' }, t('exportJsonl') + ' (' + entries.length + ')');
    download.addEventListener('click', () => {
      const blob = new Blob([exportText()], { type: 'application/x-ndjson' });
      const url = URL.createObjectURL(blob);
      const a = el('a', { href: url, download: 'k12eval-step-labels.jsonl' });
      document.body.appendChild(a);
      a.click();
      a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    });
    const clearAll = el('button', { type: 'button', class: 'btn ghost', id: 'clear-verdicts' }, t('clearAll'));
    clearAll.addEventListener('click', () => { saveVerdicts({}); route(); });
    root.appendChild(el('div', { class: 'controls' }, download, clearAll));
    const index = Object.fromEntries(Q.map((q, i) => [q.id, i]));
    root.appendChild(el('h3', null, t('labelled')));
    root.appendChild(dataTable([
      { label: t('run'), value: (e) => (runById[e.run] ? runLabel(runById[e.run]) : e.run) },
      { label: t('id'), value: (e) => e.question_id, render: (e) => (index[e.question_id] != null ? link(qHash(index[e.question_id]), e.question_id) : e.question_id) },
      { label: t('steps'), num: true, value: (e) => e.steps.length },
      // Steps are numbered from 1 on the page; the JSONL keeps the format's 0-based index (-1: none).
      { label: t('firstErrorCol'), num: true, value: (e) => e.first_error, render: (e) => (e.first_error >= 0 ? String(e.first_error + 1) : t('none')) },
      { label: t('complete'), value: (e) => (e.complete ? '✓' : '…') },
    ], entries, { onRow: (e) => { if (index[e.question_id] != null) { state.run = e.run; location.hash = qHash(index[e.question_id]); } } }));
    root.appendChild(el('h3', null, t('exportBox')));
    root.appendChild(el('textarea', { class: 'export', readonly: true, id: 'verdict-jsonl', 'aria-label': t('exportBox') }, text));
    return root;
  }

  function viewTables() {
    const root = el('div');
    root.appendChild(el('h2', null, t('tables')));
    for (const table of DATA.tables) {
      const card = el('div', { class: 'card', id: 'table-' + table.id });
      card.appendChild(el('h3', null, table[state.lang], ' ', el('span', { class: 'muted small' }, t('tableSource') + colon() + (state.lang === 'zh' && table.source_zh ? table.source_zh : table.source))));
      const caption = state.lang === 'zh' && table.caption_zh ? table.caption_zh : table.caption;
      if (caption) card.appendChild(el('p', { class: 'muted small caption' }, caption));
      if (!table.rows.length) card.appendChild(el('p', { class: 'empty' }, t('noData')));
      else {
        const numeric = (i) => table.rows.every((r) => r[i] == null || /^[-+\d.\s/—%]*$/.test(String(r[i])));
        const titles = (table.titles || {})[state.lang] || table.columns;
        // Values with names (a variant, a type, a mode, an error type) and runs are shown as the page names them.
        const named = (c) => ['variant', 'type', 'stage', 'mode', 'with', 'without', 'error_type'].includes(c);
        const runs = (c) => ['run', 'run_a', 'run_b'].includes(c);
        const title = (c, i) => (runById[c] ? runLabel(runById[c]) : titles[i]);  // CK12 Table 3: one column per run
        // On the Chinese page a column named in Chinese keeps, on hover, the name the papers and the table's CSV use
        // (CMMLU's 人文学科 is the paper's Humanities), for a reader setting the two side by side.
        const original = (c, i) => (state.lang === 'zh' && !runById[c] && title(c, i) !== c ? fillIn(t('columnAs'), { name: c }) : null);
        const columns = table.columns.map((c, i) => ({ label: title(c, i), title: original(c, i), num: numeric(i), value: (r) => r[i],
          render: named(c) ? (r) => v(r[i]) : runs(c) ? (r) => (runById[r[i]] ? runLabel(runById[r[i]]) : r[i]) : null }));
        card.appendChild(dataTable(columns, table.rows, { filter: table.rows.length > 8, nowrap: true }));
      }
      root.appendChild(card);
    }
    return root;
  }

  // ---------------------------------------------------------------- routing
  const TABS = [['overview', 'overview'], ['knowledge', nodeHash('all')], ['question', Q.length ? qHash(0) : 'q/'], ['compare', 'compare'], ['verdicts', 'verdicts'], ['tables', 'tables']];
  // When the report was built, as the reader's clock reads it (2026/11/29 15:00:02), not ISO's 2026-11-29T07:00:02+00:00.
  const generatedAt = () => {
    const when = new Date(DATA.meta.generated);
    return Number.isNaN(when.getTime()) ? String(DATA.meta.generated) : when.toLocaleString(state.lang === 'zh' ? 'zh-CN' : 'en-GB', { hour12: false });
  };
  // A typed or cut-off address (`#q/%E4%B8`) is no escape sequence: read as written, not a blank page.
  const address = (text) => { try { return decodeURIComponent(text); } catch (e) { return text; } };
  function route() {
    const raw = location.hash.replace(/^#/, '');
    const hash = address(raw) || 'overview';
    const [name, ...rest] = hash.split('/');
    // `q/<id>/in/<point>`, read before decoding: the page writes an id's own slashes as %2F.
    const parts = raw.split('/'), cut = name === 'q' ? parts.lastIndexOf('in') : -1;
    const arg = cut > 1 ? address(parts.slice(1, cut).join('/')) : rest.join('/');
    const point = cut > 1 ? address(parts.slice(cut + 1).join('/')) : null;
    document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en';
    mathClock.until = performance.now() + MATH_BUDGET_MS;
    mathClock.nodes = 0;
    mathClock.pieces = 0;
    mathClock.cells = 0;
    document.getElementById('title').textContent = GIVEN_TITLE || t('title');
    document.title = (GIVEN_TITLE || t('title')) + ' · k12eval';
    const langButton = document.getElementById('lang');
    langButton.textContent = t('other');
    const active = name === 'node' ? 'knowledge' : name === 'q' ? 'question' : name;
    const nav = document.getElementById('tabs');
    nav.setAttribute('aria-label', t('viewsNav'));
    nav.replaceChildren(...TABS.map(([key, target]) => el('a', { href: '#' + target, class: key === active ? 'active' : null, 'data-tab': key }, t(key))));
    let view;
    if (!state.run) view = el('p', { class: 'empty' }, t('noData'));
    else if (name === 'node') view = viewNode(arg);
    else if (name === 'q') view = viewQuestion(arg, point);
    else if (name === 'compare') view = viewCompare();
    else if (name === 'verdicts') view = viewVerdicts();
    else if (name === 'tables') view = viewTables();
    else view = viewOverview();
    document.getElementById('view').replaceChildren(view);
    document.getElementById('footer').textContent = 'k12eval ' + DATA.meta.version + ' · ' + t('generated') + ' ' + generatedAt();
  }
  document.getElementById('lang').addEventListener('click', () => {
    state.lang = state.lang === 'zh' ? 'en' : 'zh';
    localStorage.setItem(LANG_KEY, state.lang);
    route();
  });
  window.addEventListener('hashchange', () => { route(); window.scrollTo(0, 0); });
  route();
})();
