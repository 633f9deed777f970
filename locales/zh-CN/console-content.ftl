# 控制台的内容页面：CSV 导入、技能树、分类、知识卡片。

## 这些页面共用

content-id = ID
content-edit = 编辑
content-save = 保存
content-delete = 删除
content-top-level = （顶层）
content-sort-order = 排序值
content-name = 名称
content-title = 标题
content-category = 分类
content-question = 题目

## CSV 导入

import-title = CSV 导入
import-heading = 从 CSV 导入题目
import-intro-lead = 每一行都会成为一道
import-intro-draft = 草稿
import-intro-rest = 题目。系统会先检查文件：所有行都通过检查之前不会写入任何内容，通过后所有行一并导入。每个文件最多 200 行。
import-download-template = 下载 CSV 模板
import-columns = （列：{ $columns }）。
import-file = CSV 文件
import-check = 检查文件
import-preview = 预览
import-preview-of = 预览：{ $file }
import-all-pass = 全部 { $count } 行均已通过检查。
import-now = 导入 { $count } 道题目
import-some-fail = { $total } 行中有 { $failed } 行未通过检查，请修正后重新上传文件。本次未导入任何内容。
import-col-row = 行号
import-col-question = 题干
import-col-result = 结果
import-row-ok = 通过
import-done = 已导入 { $count } 道题目，均为草稿。请先提交审核，再发布。

## 技能树

tree-title = 技能树
tree-show = 查看
tree-intro-lead = 以下是
tree-intro-rest = 的章节，按玩家遇到的先后顺序排列（同一上级章节下按排序值排列）。删除章节时，它的下级章节会移到它的上级章节下。
tree-empty = 该分类还没有章节。
tree-node-meta = 排序值 { $order } · 每次挑战 { $questions } 题，答对 { $pass } 题通过
tree-move-up = 上移
tree-move-down = 下移
tree-add-heading = 添加章节
tree-parent = 上级章节
tree-sort-order-add = 排序值（留空：排在最后一个章节之后）
tree-questions-add = 每次挑战题数（1-{ $max }，留空：5）
tree-pass-add = 通过所需答对题数（留空：3）
tree-add = 添加章节
tree-no-categories-lead = 还没有分类，请先
tree-no-categories-link = 创建一个分类
tree-no-categories-rest = 。
tree-edit-title = 编辑章节
tree-back = ← 技能树
tree-edit-heading = 编辑章节“{ $title }”
tree-node-category = 分类
tree-edit-category = 分类（只有没有下级章节的章节才能移到其他分类，此时上级章节须选“顶层”）
tree-questions = 每次挑战题数（1-{ $max }）
tree-pass = 通过所需答对题数
tree-delete-help = 它的下级章节会移到它的上级章节下。
tree-delete-node = 删除此章节
tree-added = 已添加章节“{ $title }”。
tree-saved = 已保存章节“{ $title }”。
tree-moved-up = 已将“{ $title }”上移。
tree-moved-down = 已将“{ $title }”下移。
tree-deleted = 已删除章节“{ $title }”，它的下级章节已移到它的上级章节下。

## 分类

cat-title = 分类
cat-intro = 每个启用中的分类都是应用里的一条学习路线。归档会将分类停用：它会立即从应用中下架，其中的题目也不再下发；如需恢复，可在分类编辑页重新设为启用。
cat-slug = 别名
cat-parent = 上级分类
cat-order = 排序
cat-status = 状态
cat-questions = 题目数
cat-icon = 图标
cat-empty = 还没有分类。
cat-new-heading = 新建分类
cat-id-help = ID（a-z、0-9、- 和 _；创建后不可修改）
cat-slug-help = 别名（a-z、0-9、- 和 _；不可重复）
cat-create = 创建分类
cat-archive = 归档
cat-edit-title = 编辑分类
cat-back = ← 分类
cat-edit-heading = 编辑分类“{ $name }”
cat-live-questions = { $count } 道未归档题目
cat-its-questions = 该分类的题目
cat-its-tree = 该分类的技能树
cat-archive-help = 分类会立即从应用中下架，其中的题目仍保留在题库中。
cat-archive-this = 归档此分类
cat-created = 已创建分类“{ $name }”（{ $id }）。
cat-saved = 已保存分类“{ $name }”（{ $id }）。
cat-archived = 已归档分类“{ $name }”（{ $id }），它已不再是学习路线。
cat-learning = 能力与难度
cat-learning-help = 学习路线 { $track } 上玩家的能力与本分类题目的难度画在同一刻度上：题目所在的位置，正是能力相当的玩家答对约一半（高于猜中下限）的地方。最多抽样 { $players } 名玩家、{ $questions } 道题。
cat-learning-no-track = 此分类尚不属于任何学习路线（上方没有技能树）：只画题目的难度。
cat-last-fit = 最近一次校准：{ $model } 模型，{ $examinees } 名玩家，对数似然 { $logLikelihood }，{ $when }。
cat-no-fit = 尚未校准：题目的首次作答足够后，校准任务才会拟合这个分类。
# 分类的存储状态（i18n::term("cat-status", …)）
cat-status-active = 启用
cat-status-inactive = 停用

## 知识卡片

card-list-title = 知识卡片
card-intro = 玩家答题后阅读的卡片，最新的在前。卡片没有标题时，玩家看到的是题目所属分类的名称。
card-summary = 摘要
card-col-updated = 更新时间
card-no-title = （分类名称）
card-empty = 本页没有知识卡片。
card-page-info = 第 { $page } 页 · 共 { $total } 张卡片
card-edit-title = 编辑知识卡片
card-back = ← 知识卡片
card-its-question = 所属题目
card-created = 创建于 { $at }
card-updated = 更新于 { $at }
card-title-help = 标题（选填，最多 200 个字符；留空则玩家看到分类名称）
card-deep-dive = 深入了解（选填）
card-source = 出处（选填）
card-source-open = 打开出处
card-saved = 知识卡片已保存。

# 媒体库（issue 32）
media-title = 媒体库
media-intro = 图片题、音频题和视频题使用的图片、声音和视频。没有题目使用的文件可以删除；长期未使用的文件会被自动清理。
media-upload-file = 文件（或拖放到此处）
media-upload = 上传
media-uploaded = { $kind }已存入媒体库。
media-deleted = { $kind }已从媒体库删除。
media-delete = 删除
media-filter-type = 类型
media-filter-any = 全部
media-filter-unused = 仅未使用
media-filter-apply = 筛选
media-col-file = 文件
media-col-type = 类型
media-col-details = 格式、大小
media-col-used-by = 使用情况
media-col-uploaded = 上传时间
media-used-by = { $count } 道题目
media-empty = 暂无文件。
