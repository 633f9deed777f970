# 概览（dash-*）、题目统计页与“待处理”（quality-*），以及其中 SVG 图表里的文字（chart-*）。

## 概览

dash-title = 概览
dash-players = 玩家
dash-active-players = 近 7 天活跃玩家
dash-questions = 题目
dash-published-questions = 已发布题目
dash-average-xp = 平均经验值
dash-last-30-days = 最近 30 天
dash-link-attention = 待处理的题目
dash-link-reviewing = 待审核的题目
dash-link-import = 导入 CSV
dash-chart-active-players = 答题玩家
dash-chart-answers = 作答数
dash-chart-new-players = 新玩家
dash-chart-accuracy = 正确率

## 题目统计与版本

quality-stats-title = 统计
quality-stats-heading = 玩家作答情况
quality-edit-question = 编辑题目
quality-stats-version = 版本 { $version }
quality-stats-version-current = 版本 { $version }（当前）
quality-computed = 统计于
quality-not-computed = 尚未统计到作答
quality-attempts = 作答次数
quality-accuracy = 正确率
quality-median-time = 用时中位数
quality-seconds = { $seconds } 秒
quality-discrimination = 区分度
quality-calibrated-difficulty = 校准难度
quality-calibrated-difficulty-value = { $difficulty } ± { $error }（作者标注 { $authored }/5）
quality-uncalibrated = 尚未校准（作者标注 { $authored }/5）
quality-card-views = 知识卡片查看
quality-card-views-value = { $views }（{ $rate }）
quality-flags = 问题标记
quality-no-flags = 无标记：作答数据未显示任何问题。
quality-no-flags-few = 无标记：作答数据未显示任何问题（至少 { $min } 次作答后才会标记）。
quality-picks = 玩家选择了哪些选项
quality-daily = 每日正确率（最近 30 天）
quality-versions = 版本
quality-col-version = 版本
quality-col-edited-by = 编辑人
quality-col-when = 时间
quality-col-changed = 改动
quality-col-statistics = 统计
quality-version-current = { $version }（当前）
quality-version-created = 创建
quality-version-link = 版本 { $version }
quality-revert = 恢复到此版本
quality-compare-version = 对比版本
quality-with-version = 与版本
quality-compare = 对比
quality-diff-caption = 版本 { $from } → 版本 { $to }
quality-field-stem = 题干
quality-field-answer = 正确答案
quality-field-distractors = 干扰项
quality-field-category = 分类
quality-field-difficulty = 难度
quality-field-content-type = 内容类型
quality-field-card-title = 卡片标题
quality-field-card-summary = 卡片摘要
quality-field-card-deep-dive = 卡片延伸阅读
quality-field-card-source = 卡片出处
quality-quoted = “{ $text }”
quality-revert-unchanged = 版本 { $version } 已是当前内容，未做任何改动。
quality-reverted = 已生成版本 { $new }，内容恢复为版本 { $version }。

## 问题标记的说明

quality-flag-likely-miskeyed = 玩家选“{ $top }”的比例高于正确答案“{ $answer }”（{ $top_rate } 对 { $answer_rate }）：答案设置是否正确？
quality-flag-negative-discrimination = 水平最高的玩家比水平最低的玩家更常答错（区分度 { $discrimination }）：题干表述或答案可能有误导。
quality-flag-too-hard = 只有 { $accuracy } 的作答正确：是太难，还是题意不清？
quality-flag-too-easy = { $accuracy } 的作答正确：可能过于简单，起不到学习效果。
quality-flag-dead-distractor = 几乎没有人选{ $options }：换成更有迷惑性的干扰项，学习效果会更好。
quality-average-stability = 记忆
quality-average-stability-value = 玩家平均记住 { $days } 天（记忆稳定性，{ $players } 名玩家）
quality-flag-quickly-forgotten = 遗忘过快：玩家忘记这道题的速度快于九成题目。它的知识卡能帮助记忆吗？
quality-flag-difficulty-mismatch = 作答数据显示其难度为 { $band }/5，作者标注为 { $authored }/5，相差两档或以上：作者标注的难度是否准确？

## 待处理

quality-attention-lede = 作答数据显示可能有问题的题目，最严重的排在最前。
quality-attention-lede-some = 作答数据显示可能有问题的题目，最严重的排在最前（显示 { $shown } 道，共 { $total } 道）。
quality-attention-review-note = 题目送回审核后将不再出现在挑战中，直到有人重新发布。
quality-attention-empty = 没有被标记的题目：目前没有题目的作答数据显示问题。
quality-col-select = 选择
quality-col-question = 题目
quality-col-status = 状态
quality-col-attempts = 作答次数
quality-col-accuracy = 正确率
quality-col-why = 原因
quality-send-to-review = 将选中的题目送回审核
quality-review-none-selected = 请先选择要送回审核的题目。
quality-review-sent = 已将 { $count } 道题送回审核。
quality-review-sent-some = 已将 { $count } 道题送回审核。未移动：{ $failed }。
quality-review-failure = { $id }：{ $reason }
quality-review-failure-sep = ；
quality-review-not-found = 题目不存在
quality-review-cannot-move = 无法将题目从“{ $from }”改为“{ $to }”

## 图表内的文字（读屏摘要、悬停提示、空图表）

chart-option = { $option }：{ $value }
chart-correct-option = { $option }（正确答案）：{ $value }
chart-option-rate = 占作答的 { $rate }，被选 { $picks } 次
chart-option-no-answers = 暂无作答
chart-picks-summary = 各选项的选择率。{ $options }
chart-list-sep = ；
chart-picks-empty-summary = 各选项的选择率：暂无作答
chart-no-answers = 暂无作答
chart-daily-values = 每日数值
chart-range = { $from } 至 { $to }
chart-range-day = { $day }
chart-summary = { $what }（{ $range }）：{ $detail }
chart-summary-no-range = { $what }：{ $detail }
chart-detail = 最新 { $latest }（{ $day }），最高 { $max }，最低 { $min }
chart-detail-gaps = { $detail }，{ $gaps }
chart-gap-day = { $days } 天无数据
chart-gap-days = { $days } 天无数据
chart-detail-none = 暂无数据
chart-no-data = 暂无数据
chart-max = 最高 { $value }
chart-point = { $day }：{ $value }
chart-wright-summary = 怀特图：{ $players } 名玩家的能力（中位数 { $playerMedian }）与 { $questions } 道题的难度（中位数 { $questionMedian }）在同一 logit 刻度上
chart-wright-players = 玩家（{ $count }）
chart-wright-questions = 题目（{ $count }）
chart-wright-player-column = 能力在 { $range } 的玩家：{ $count } 名
chart-wright-question-column = 难度在 { $range } 的题目：{ $count } 道
chart-wright-range = { $from } 至 { $to }
chart-wright-low = ← 能力较弱的玩家、较易的题
chart-wright-high = 能力较强的玩家、较难的题 →
