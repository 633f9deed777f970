# 题库：带筛选和批量操作的题目列表、题目编辑页、状态变更。

## 列表

q-title = 题目
q-new-question = 新建题目
q-import-csv = 导入 CSV
q-filter-status = 状态
q-filter-category = 分类
q-filter-keyword = 关键词
q-filter-keyword-placeholder = 搜索题干或答案
q-filter-difficulty = 难度
q-filter-source = 来源
q-filter-any = 全部
q-filter-flagged = 只看被标记的题目
q-filter-sort-by = 排序依据
q-filter-order = 顺序
q-filter-apply = 筛选
q-sort-createdAt = 创建时间
q-sort-updatedAt = 更新时间
q-sort-difficulty = 难度
q-sort-accuracy = 正确率
q-sort-attempts = 作答次数
q-sort-severity = 问题严重程度
q-order-desc = 降序
q-order-asc = 升序

## 表格

q-export-intro = 导出当前筛选条件下的全部 { $total } 道题（含所有页）：
q-export-zip = ZIP（含媒体）
q-batch-intro = 对选中的题目：
q-batch-publish = 发布
q-batch-archive = 归档
q-batch-delete = 删除
q-col-question = 题目
q-col-status = 状态
q-col-category = 分类
q-col-difficulty = 难度
q-col-source = 来源
q-col-attempts = 作答次数
q-col-flags = 标记
q-col-updated = 更新时间
q-select-row = 选择
q-no-match = 没有符合筛选条件的题目。
q-page-info = 第 { $page } 页 · 共 { $total } 道题
q-batch-summary = { $action }：共 { $total } 道，成功 { $succeeded } 道。
q-reason-separator = ：
q-batch-not-found = 未找到该题目
q-batch-cannot-move = 无法从“{ $from }”改为“{ $to }”

## 状态变更

q-status-label = 状态：
q-no-move = 当前状态下没有可执行的变更。
q-move-draft = 退回草稿
q-move-reviewing = 提交审核
q-move-published = 发布
q-move-archived = 归档
q-status-now = 状态已变为“{ $status }”。

## 编辑页

q-created = 题目已创建为草稿。
q-saved = 题目已保存。
q-edit-title = 编辑题目
q-back = ← 题目列表
q-edit-id = ID
q-edit-meta = 来源：{ $source } · 创建于 { $created } · 版本 { $version }
q-edit-stats-link = 统计与版本
q-edit-flagged = 已标记：{ $flags }
q-new-help = 新题目创建后为草稿状态。
q-legend-question = 题目
q-field-stem = 题干
q-field-correct = 正确答案
q-field-distractors = 干扰项（每行一个，至少 2 个）
q-field-category = 分类
q-field-content-type = 内容类型
q-field-difficulty = 难度
q-legend-card = 知识卡片
q-field-card-title = 标题（选填）
q-field-card-summary = 摘要
q-field-card-deep-dive = 深入讲解
q-field-card-source = 出处
q-legend-media = 媒体
q-field-media-alt = 替代文本（屏幕阅读器朗读的内容；图片必填）
q-media-alt-help = 描述图片的内容，但不要泄露答案。
q-field-media-file = 上传文件（或拖放到此处）
q-media-file-help = 图片：PNG、JPEG 或 WebP，最大 4096 × 4096；音频：MP3、AAC、M4A 或 Ogg；视频：MP4 或 WebM。保存时文件存入媒体库；JPEG 的元数据（EXIF、GPS）会被移除。
q-media-remove = 从本题移除媒体
q-media-none = 没有媒体：文字题，或在下方上传图片、声音或视频。
q-media-missing = 本题引用的媒体已不在媒体库中，请重新上传。
q-save = 保存
q-create-draft = 创建草稿
